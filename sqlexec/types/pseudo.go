package types

// The pseudo-types that only routines declare: void, the result of a
// function that returns nothing (its value prints as the empty string),
// and trigger, the result of a trigger function.
const (
	OidVoid    Oid = 2278
	OidTrigger Oid = 2279
)

// Void and Trigger are the pseudo-types void and trigger.
var (
	Void    = Type{OidVoid, -1}
	Trigger = Type{OidTrigger, -1}
)

func init() {
	typeInfos[OidVoid] = typeInfo{"void", "void", 4, CategoryPseudo, false}
	typeInfos[OidTrigger] = typeInfo{"trigger", "trigger", 4, CategoryPseudo, false}
	typeNames["void"] = OidVoid
	typeNames["trigger"] = OidTrigger
}
