class AddMemberEmail < ActiveRecord::Migration[6.1]
  def change
    enable_extension "citext"
    add_column :members, :email, :citext
    add_index :members, :email, unique: true
  end
end
