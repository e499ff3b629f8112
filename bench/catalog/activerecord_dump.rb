# activerecord_dump.rb prints ActiveRecord's schema dump (db/schema.rb, as
# `rails db:schema:dump` and every `db:migrate` write it) of the database
# the PG* environment variables name.
require "active_record"

ActiveRecord::Base.establish_connection(
  adapter: "postgresql", host: ENV["PGHOST"], port: ENV["PGPORT"], username: ENV["PGUSER"], database: ENV["PGDATABASE"]
)
ActiveRecord::SchemaDumper.dump(ActiveRecord::Base.connection, $stdout)
