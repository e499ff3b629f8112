class AddTitleSearch < ActiveRecord::Migration[6.1]
  def change
    enable_extension "pg_trgm"
    add_index :books, :title, using: :gin, opclass: :gin_trgm_ops, name: "index_books_on_title_trgm"
  end
end
