class CreateMembers < ActiveRecord::Migration[6.1]
  def change
    enable_extension "pgcrypto"
    create_table :members, id: :uuid, default: -> { "gen_random_uuid()" } do |t|
      t.string :login, null: false
      t.string :password_hash, null: false
      t.binary :token_digest
      t.timestamps
    end
    add_index :members, :login, unique: true
  end
end
