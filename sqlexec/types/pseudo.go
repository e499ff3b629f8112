package types

// The pseudo-types that only routines declare: void, the result of a
// function that returns nothing (its value prints as the empty string),
// trigger and event_trigger, the results of trigger and event trigger
// functions.
const (
	OidVoid         Oid = 2278
	OidTrigger      Oid = 2279
	OidEventTrigger Oid = 3838
	OidPgDDLCommand Oid = 32
)

// Void, Trigger and EventTrigger are the pseudo-types void, trigger and
// event_trigger.
var (
	Void         = Type{OidVoid, -1}
	Trigger      = Type{OidTrigger, -1}
	EventTrigger = Type{OidEventTrigger, -1}
	// PgDDLCommand is pg_ddl_command, the type of what
	// pg_event_trigger_ddl_commands() reports of a command's internals.
	PgDDLCommand = Type{OidPgDDLCommand, -1}
)

func init() {
	typeInfos[OidVoid] = typeInfo{"void", "void", 4, CategoryPseudo, false}
	typeInfos[OidTrigger] = typeInfo{"trigger", "trigger", 4, CategoryPseudo, false}
	typeNames["void"] = OidVoid
	typeNames["trigger"] = OidTrigger
	typeInfos[OidEventTrigger] = typeInfo{"event_trigger", "event_trigger", 4, CategoryPseudo, false}
	typeNames["event_trigger"] = OidEventTrigger
	typeInfos[OidPgDDLCommand] = typeInfo{"pg_ddl_command", "pg_ddl_command", 8, CategoryPseudo, false}
	typeNames["pg_ddl_command"] = OidPgDDLCommand
}
