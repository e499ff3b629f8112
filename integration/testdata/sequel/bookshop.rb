# A Sequel application against the database the PG* environment variables
# name: its schema methods (create_table with a foreign key and a unique
# index, alter_table), the introspection they rely on (schema, indexes,
# foreign_key_list, tables: pg_attribute, pg_index and pg_constraint
# queries of Sequel's own), models with associations and eager loading,
# a transaction rolled back, a unique violation mapped to its exception,
# an upsert, pg_array and pg_json values, FOR UPDATE SKIP LOCKED. It
# prints what it reads, so that runs on two servers compare line by line.
require 'sequel'

DB = Sequel.connect(adapter: 'postgres', host: ENV['PGHOST'], port: ENV['PGPORT'].to_i,
                    user: ENV['PGUSER'], database: ENV['PGDATABASE'])
DB.extension :pg_array, :pg_json

def show(label, value)
  puts "#{label}: #{value.inspect}"
end

DB.drop_table?(:books, :authors)
DB.create_table(:authors) do
  primary_key :id
  String :name, null: false, unique: true
  column :tags, 'text[]'
  column :meta, :jsonb
  DateTime :created_at
  Integer :lock_version, default: 0
end
DB.create_table(:books) do
  primary_key :id
  foreign_key :author_id, :authors, on_delete: :cascade
  String :title
  BigDecimal :price, size: [10, 2]
  index [:author_id, :title], unique: true
end
show 'schema', DB.schema(:authors).map { |c, i| [c, i[:db_type], i[:allow_null], i[:primary_key], i[:default]] }
show 'indexes', DB.indexes(:books)
show 'foreign keys', DB.foreign_key_list(:books)
show 'tables', DB.tables.sort

class Author < Sequel::Model; one_to_many :books; end
class Book < Sequel::Model; many_to_one :author; end

ann = Author.create(name: 'Ann', tags: Sequel.pg_array(%w[x y]), meta: Sequel.pg_jsonb('k' => 1),
                    created_at: Time.utc(2024, 1, 2, 3, 4, 5))
ann.add_book(title: 'T1', price: BigDecimal('9.99'))
ann.add_book(title: 'T2', price: BigDecimal('1.5'))
show 'books', Author.first.books.sort_by(&:id).map { |b| [b.title, b.price.to_s('F')] }
show 'eager', Author.eager(:books).all.map { |a| [a.name, a.books.size] }
show 'filtered', Book.where(Sequel.lit('price > ?', 2)).select_map(:title)
show 'grouped', DB[:books].group_and_count(:author_id).all
DB.transaction do
  Book.where(title: 'T1').update(price: 5)
  raise Sequel::Rollback
end
show 'rolled back', Book.where(title: 'T1').get(:price).to_s('F')
begin
  Author.create(name: 'Ann')
rescue Sequel::UniqueConstraintViolation => e
  show 'unique', e.class.name
end
show 'upsert', DB[:authors].insert_conflict(target: :name, update: { lock_version: Sequel[:authors][:lock_version] + 1 }).insert(name: 'Ann')
show 'after upsert', DB[:authors].select(:name, :lock_version).all
show 'values', [Author.first.tags.to_a, Author.first.meta.to_h, Author.first.created_at.utc.iso8601]
DB.alter_table(:books) do
  add_column :isbn, String
  add_index :isbn
end
show 'altered', DB.schema(:books, reload: true).map(&:first)
DB.transaction { show 'skip locked', DB[:books].for_update.skip_locked.order(:id).limit(1).select_map(:title) }
show 'date()', DB.fetch('SELECT date(created_at) AS d FROM authors').all.map { |r| r[:d].iso8601 }
DB.drop_table(:books, :authors)
