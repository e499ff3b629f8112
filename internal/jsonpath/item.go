package jsonpath

import (
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"
)

// Kind is the kind of a path item, as PostgreSQL's JsonPathItemType.
type Kind uint8

const (
	KindNull Kind = iota
	KindString
	KindNumeric
	KindBool
	KindAnd
	KindOr
	KindNot
	KindIsUnknown
	KindEqual
	KindNotEqual
	KindLess
	KindGreater
	KindLessOrEqual
	KindGreaterOrEqual
	KindAdd
	KindSub
	KindMul
	KindDiv
	KindMod
	KindPlus
	KindMinus
	KindAnyArray
	KindAnyKey
	KindIndexArray
	KindAny
	KindKey
	KindCurrent
	KindRoot
	KindVariable
	KindFilter
	KindExists
	KindType
	KindSize
	KindAbs
	KindFloor
	KindCeiling
	KindDouble
	KindDatetime
	KindKeyValue
	KindStartsWith
	KindLikeRegex
	KindLast
)

// Regex flags of like_regex, in the order they print.
const (
	FlagICase  = 1 << iota // i
	FlagDotAll             // s
	FlagMLine              // m
	FlagWSpace             // x
	FlagQuote              // q
)

// AnyLast is the bound "last" of .**{m to n}.
const AnyLast = ^uint32(0)

// Item is one step of a path. Accessors and methods chain through Next;
// operators keep their operands in Left and Right (unary ones, filters,
// exists and .datetime() in Left; like_regex its subject).
type Item struct {
	Kind        Kind
	Str         string       // string, key, variable name, like_regex pattern
	Num         *apd.Decimal // numeric literal
	Bool        bool
	Left, Right *Item
	Subscripts  []Subscript // [a, b to c]
	First, Last uint32      // .**{First to Last}
	Flags       uint8       // like_regex flags
	Next        *Item
}

// Subscript is one element of an array accessor; To is nil for a single
// index.
type Subscript struct{ From, To *Item }

// Path is a parsed jsonpath: its mode and its expression.
type Path struct {
	Lax  bool
	Expr *Item
}

// String prints p as jsonpath_out does: the normalized text that parses back
// to the same path.
func (p *Path) String() string {
	var sb strings.Builder
	if !p.Lax {
		sb.WriteString("strict ")
	}
	printItem(&sb, p.Expr, false, true)
	return sb.String()
}

var opNames = map[Kind]string{
	KindAnd: "&&", KindOr: "||", KindEqual: "==", KindNotEqual: "!=", KindLess: "<", KindGreater: ">",
	KindLessOrEqual: "<=", KindGreaterOrEqual: ">=", KindAdd: "+", KindPlus: "+", KindSub: "-", KindMinus: "-",
	KindMul: "*", KindDiv: "/", KindMod: "%", KindStartsWith: "starts with", KindLikeRegex: "like_regex",
	KindType: "type", KindSize: "size", KindKeyValue: "keyvalue", KindDouble: "double", KindAbs: "abs",
	KindFloor: "floor", KindCeiling: "ceiling", KindDatetime: "datetime",
}

// OperationName is the name of an operator or method in error messages.
func OperationName(k Kind) string { return opNames[k] }

// priority orders operators for printing parentheses.
func priority(k Kind) int {
	switch k {
	case KindOr:
		return 0
	case KindAnd:
		return 1
	case KindEqual, KindNotEqual, KindLess, KindGreater, KindLessOrEqual, KindGreaterOrEqual, KindStartsWith:
		return 2
	case KindAdd, KindSub:
		return 3
	case KindMul, KindDiv, KindMod:
		return 4
	case KindPlus, KindMinus:
		return 5
	}
	return 6
}

// appendQuoted appends s as a JSON string literal (PostgreSQL's escape_json).
func appendQuoted(sb *strings.Builder, s string) {
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\b':
			sb.WriteString(`\b`)
		case '\f':
			sb.WriteString(`\f`)
		case '\n':
			sb.WriteString(`\n`)
		case '\r':
			sb.WriteString(`\r`)
		case '\t':
			sb.WriteString(`\t`)
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		default:
			if r < 0x20 {
				sb.WriteString(`\u00`)
				sb.WriteByte("0123456789abcdef"[r>>4])
				sb.WriteByte("0123456789abcdef"[r&15])
			} else {
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('"')
}

func printItem(sb *strings.Builder, it *Item, inKey, brackets bool) {
	sub := func(c *Item) { printItem(sb, c, false, priority(c.Kind) <= priority(it.Kind)) }
	switch it.Kind {
	case KindNull:
		sb.WriteString("null")
	case KindKey:
		if inKey {
			sb.WriteByte('.')
		}
		appendQuoted(sb, it.Str)
	case KindString:
		appendQuoted(sb, it.Str)
	case KindVariable:
		sb.WriteByte('$')
		appendQuoted(sb, it.Str)
	case KindNumeric:
		if it.Next != nil {
			sb.WriteByte('(')
		}
		sb.WriteString(it.Num.Text('f'))
		if it.Next != nil {
			sb.WriteByte(')')
		}
	case KindBool:
		sb.WriteString(strconv.FormatBool(it.Bool))
	case KindAnd, KindOr, KindEqual, KindNotEqual, KindLess, KindGreater, KindLessOrEqual, KindGreaterOrEqual,
		KindAdd, KindSub, KindMul, KindDiv, KindMod, KindStartsWith:
		if brackets {
			sb.WriteByte('(')
		}
		sub(it.Left)
		sb.WriteString(" " + opNames[it.Kind] + " ")
		sub(it.Right)
		if brackets {
			sb.WriteByte(')')
		}
	case KindLikeRegex:
		if brackets {
			sb.WriteByte('(')
		}
		sub(it.Left)
		sb.WriteString(" like_regex ")
		appendQuoted(sb, it.Str)
		if it.Flags != 0 {
			sb.WriteString(` flag "`)
			for i, c := range "ismxq" {
				if it.Flags&(1<<i) != 0 {
					sb.WriteRune(c)
				}
			}
			sb.WriteByte('"')
		}
		if brackets {
			sb.WriteByte(')')
		}
	case KindPlus, KindMinus:
		if brackets {
			sb.WriteByte('(')
		}
		sb.WriteString(opNames[it.Kind])
		sub(it.Left)
		if brackets {
			sb.WriteByte(')')
		}
	case KindFilter:
		sb.WriteString("?(")
		printItem(sb, it.Left, false, false)
		sb.WriteByte(')')
	case KindNot:
		sb.WriteString("!(")
		printItem(sb, it.Left, false, false)
		sb.WriteByte(')')
	case KindIsUnknown:
		sb.WriteByte('(')
		printItem(sb, it.Left, false, false)
		sb.WriteString(") is unknown")
	case KindExists:
		sb.WriteString("exists (")
		printItem(sb, it.Left, false, false)
		sb.WriteByte(')')
	case KindCurrent:
		sb.WriteByte('@')
	case KindRoot:
		sb.WriteByte('$')
	case KindLast:
		sb.WriteString("last")
	case KindAnyArray:
		sb.WriteString("[*]")
	case KindAnyKey:
		if inKey {
			sb.WriteByte('.')
		}
		sb.WriteByte('*')
	case KindIndexArray:
		sb.WriteByte('[')
		for i, s := range it.Subscripts {
			if i > 0 {
				sb.WriteByte(',')
			}
			printItem(sb, s.From, false, false)
			if s.To != nil {
				sb.WriteString(" to ")
				printItem(sb, s.To, false, false)
			}
		}
		sb.WriteByte(']')
	case KindAny:
		if inKey {
			sb.WriteByte('.')
		}
		bound := func(b uint32) string {
			if b == AnyLast {
				return "last"
			}
			return strconv.FormatUint(uint64(b), 10)
		}
		switch {
		case it.First == 0 && it.Last == AnyLast:
			sb.WriteString("**")
		case it.First == it.Last:
			sb.WriteString("**{" + bound(it.First) + "}")
		default:
			sb.WriteString("**{" + bound(it.First) + " to " + bound(it.Last) + "}")
		}
	case KindType, KindSize, KindAbs, KindFloor, KindCeiling, KindDouble, KindKeyValue:
		sb.WriteString("." + opNames[it.Kind] + "()")
	case KindDatetime:
		sb.WriteString(".datetime(")
		if it.Left != nil {
			printItem(sb, it.Left, false, false)
		}
		sb.WriteByte(')')
	}
	if it.Next != nil {
		printItem(sb, it.Next, true, true)
	}
}
