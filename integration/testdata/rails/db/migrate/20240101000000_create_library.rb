class CreateLibrary < ActiveRecord::Migration[6.1]
  def change
    create_table :authors do |t|
      t.string :name, null: false
      t.string :email, limit: 120
      t.date :born
      t.timestamps
    end
    add_index :authors, :name, unique: true

    create_table :books do |t|
      t.references :author, null: false, foreign_key: true
      t.string :title, null: false
      t.integer :pages, default: 100, null: false
      t.decimal :price, precision: 8, scale: 2
      t.boolean :available, default: true, null: false
      t.jsonb :meta, default: {}
      t.text :summary
      t.integer :lock_version, default: 0, null: false
      t.timestamps
    end
    add_index :books, [:author_id, :title], unique: true
    add_index :books, :pages
  end
end
