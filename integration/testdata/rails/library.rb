# An ActiveRecord 6.1 application (no Rails around it), against the
# database the PG* environment variables name:
#
#   ruby library.rb migrate   runs db/migrate, then prints the schema dump
#   ruby library.rb load      loads the schema dump back, as db:schema:load
#                             prepares a test database, and prints it again
#   ruby library.rb structure prints db/structure.sql as structure_dump writes it
#   ruby library.rb app       associations, validations, transactions, lock!
#
# It prints what it reads, so that runs on two servers can be compared.
require "active_record"
require "stringio"

ActiveRecord::Base.establish_connection(
  adapter: "postgresql", host: ENV["PGHOST"], port: ENV["PGPORT"], username: ENV["PGUSER"], database: ENV["PGDATABASE"]
)
ActiveRecord::Base.default_timezone = :utc

class Author < ActiveRecord::Base
  has_many :books, -> { order(:id) }, dependent: :destroy
  validates :name, presence: true, uniqueness: true
  validates :email, format: { with: /@/ }, allow_nil: true
end

class Book < ActiveRecord::Base
  belongs_to :author
  has_many :loans, dependent: :destroy
  validates :title, presence: true, uniqueness: { scope: :author_id }
  validates :pages, numericality: { greater_than: 0 }
end

class Loan < ActiveRecord::Base
  belongs_to :book
end

# A member's password is hashed with pgcrypto's crypt() and bcrypt, as
# apps without has_secure_password do; its id is a gen_random_uuid().
class Member < ActiveRecord::Base
  def self.register!(login, password)
    create!(login: login, password_hash: connection.select_value(sanitize_sql(["SELECT crypt(?, gen_salt('bf', 4))", password])),
            token_digest: connection.unescape_bytea(connection.select_value(sanitize_sql(["SELECT digest(?, 'sha256')", "token-#{login}"]))))
  end

  def self.authenticate(login, password)
    where("login = ? AND password_hash = crypt(?, password_hash)", login, password).first
  end
end

def show(label, value)
  puts "#{label} #{value.inspect}"
end

case ARGV[0]
when "migrate"
  ActiveRecord::Migration.verbose = false
  ActiveRecord::MigrationContext.new(File.join(__dir__, "db/migrate"), ActiveRecord::SchemaMigration).migrate
  io = StringIO.new
  ActiveRecord::SchemaDumper.dump(ActiveRecord::Base.connection, io)
  puts io.string
when "load"
  ActiveRecord::Migration.verbose = false
  dump = StringIO.new
  ActiveRecord::SchemaDumper.dump(ActiveRecord::Base.connection, dump)
  eval(dump.string) # what load_schema does with db/schema.rb: enable_extension, create_table force: :cascade, ...
  io = StringIO.new
  ActiveRecord::SchemaDumper.dump(ActiveRecord::Base.connection, io)
  puts io.string
when "structure"
  # What db:migrate writes with config.active_record.schema_format = :sql:
  # DatabaseTasks.structure_dump runs pg_dump -s -x -O into db/structure.sql.
  # pg_dump draws its \restrict key at random on each run, and names the
  # server's version as the server reports it: both are masked.
  require "tempfile"
  file = Tempfile.new(["structure", ".sql"])
  ActiveRecord::Tasks::DatabaseTasks.structure_dump(ActiveRecord::Base.connection_db_config, file.path)
  puts File.read(file.path).gsub(/^\\(un)?restrict .*$/) { "\\#{$1}restrict ..." }
                           .gsub(/^-- Dumped from database version .*$/, "-- Dumped from database version ...")
when "app"
  ann = Author.create!(name: "Ann", email: "ann@example.com", born: Date.new(1950, 3, 1))
  bob = Author.create!(name: "Bob")
  show "invalid author", Author.new(name: "Ann", email: "nope").tap(&:valid?).errors.full_messages
  ann.books.create!(title: "First", pages: 120, price: BigDecimal("9.50"), meta: { "tags" => ["a"] })
  ann.books.create!(title: "Second")
  show "invalid book", Book.new(author: ann, title: "First", pages: 0).tap(&:valid?).errors.full_messages
  show "books", Author.find_by!(name: "Ann").books.map { |b| [b.title, b.pages, b.price&.to_s, b.available, b.meta] }
  show "counts", Author.left_joins(:books).group("authors.name").order("authors.name").count("books.id")
  show "includes", Author.includes(:books).order(:name).map { |a| [a.name, a.books.size, a.country] }

  Author.transaction do
    ann.update!(email: "ann@new.example")
    Author.transaction(requires_new: true) do
      bob.update!(name: "Robert")
      raise ActiveRecord::Rollback
    end
  end
  show "after nested rollback", Author.order(:id).pluck(:name, :email)
  begin
    Author.transaction do
      Book.create!(author: bob, title: "Ghost")
      Book.create!(author: bob, title: "Ghost")
    end
  rescue ActiveRecord::RecordInvalid => e
    show "transaction rolled back", e.message
  end
  show "ghosts", Book.where(title: "Ghost").count
  begin
    Book.insert_all!([{ author_id: ann.id, title: "First", created_at: Time.now, updated_at: Time.now }])
  rescue ActiveRecord::RecordNotUnique => e
    show "unique index", e.cause.class.name
  end

  book = ann.books.first
  Book.transaction do
    book.lock!
    book.update!(pages: book.pages + 1)
  end
  show "locked update", [book.reload.pages, book.lock_version]
  stale = Book.find(book.id)
  book.update!(summary: "changed")
  begin
    stale.update!(summary: "stale")
  rescue ActiveRecord::StaleObjectError => e
    show "optimistic lock", e.class.name
  end
  book.loans.create!(borrower: "Cy", due_at: Time.utc(2024, 5, 1, 12))
  show "loans", Loan.joins(book: :author).where(authors: { name: "Ann" }).pluck(:borrower, :due_at)
  3.times { |i| bob.books.create!(title: "Vol #{i}", pages: 10 + i) }
  ann.destroy
  show "after destroy", [Author.count, Book.count, Loan.count]
  show "find_each", Book.find_each(batch_size: 1).map(&:title)
  show "similar titles", Book.where("title % ?", "Vol 1").order(Arel.sql("similarity(title, 'Vol 1') DESC, title"))
                             .pluck(:title, Arel.sql("round(similarity(title, 'Vol 1')::numeric, 3)"))
  show "fuzzy search", Book.where("title ILIKE ?", "%vol%").order(Arel.sql("title <-> 'vol 2'")).pluck(:title)

  ann_member = Member.register!("ann", "s3cret")
  Member.register!("bob", "hunter2")
  show "member id", ann_member.id.match?(/\A\h{8}-\h{4}-4\h{3}-[89ab]\h{3}-\h{12}\z/)
  show "password hash", ann_member.password_hash.match?(%r{\A\$2a\$04\$[./A-Za-z0-9]{53}\z})
  show "authenticate", [Member.authenticate("ann", "s3cret")&.id == ann_member.id, Member.authenticate("ann", "hunter2"),
                        Member.authenticate("bob", "hunter2")&.login]
  show "token digest", Member.order(:login).pluck(:login, Arel.sql("encode(token_digest, 'hex')"))
  show "members", Member.count
  ann_member.update!(email: "Ann@Example.com")
  show "email", [Member.find_by(email: "ANN@EXAMPLE.COM")&.login, Member.where("email LIKE ?", "ann@%").pluck(:email),
                 Member.find_by(email: "ann@example.com")&.email]
  begin
    Member.find_by(login: "bob").update!(email: "ann@EXAMPLE.com")
    show "duplicate email", "accepted"
  rescue ActiveRecord::RecordNotUnique => e
    show "duplicate email", e.cause.class.name
  end
  show "emails", Member.order(:email).pluck(:login, :email)
end
