class AddLoans < ActiveRecord::Migration[6.1]
  def change
    create_table :loans do |t|
      t.references :book, null: false, foreign_key: { on_delete: :cascade }
      t.string :borrower, null: false
      t.datetime :due_at
    end
    add_column :authors, :country, :string, default: "FR"
  end
end
