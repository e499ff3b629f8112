package sqlexec

import (
	"strconv"

	"github.com/fickle-db/fickle/internal/pgerror"
	"github.com/fickle-db/fickle/internal/trgm"
	"github.com/fickle-db/fickle/sqlexec/types"
)

// pg_trgm 1.6: its SQL-callable functions (the trigram arithmetic is
// package trgm's), its operators on text, its thresholds (settings of its
// library) and its GIN and GiST operator classes, which CREATE INDEX
// accepts: the store keeps such an index as an ordered index of the text
// (no planner path uses it for the trigram operators), so results are
// those of a scan. The support functions of the operator classes, which
// take and return internal, are not created.

// The thresholds of the similarity operators.
const (
	trgmSimilarityThreshold           = "pg_trgm.similarity_threshold"
	trgmWordSimilarityThreshold       = "pg_trgm.word_similarity_threshold"
	trgmStrictWordSimilarityThreshold = "pg_trgm.strict_word_similarity_threshold"
)

func init() {
	text, real, boolean := types.Text, types.Float4, types.Bool
	textArray := arrayType(types.Text)
	two := []funcParam{{typ: text, mode: 'i', arg: true}, {typ: text, mode: 'i', arg: true}}
	// measure is a function of two texts giving a real.
	measure := func(name string, f func(a, b string) float32) extensionFunc {
		return extensionFunc{name: name, params: two, result: real, volatility: 'i', symbol: name,
			eval: func(_ *execCtx, a []any) (any, error) { return float64(f(a[0].(string), a[1].(string))), nil }}
	}
	// distance is 1 - f(a, b), in float4 as pg_trgm computes it.
	distance := func(name string, f func(a, b string) float32) extensionFunc {
		return measure(name, func(a, b string) float32 { return float32(1.0 - float64(f(a, b))) })
	}
	// atLeast says whether f(a, b) reaches the threshold setting.
	atLeast := func(name, setting string, f func(a, b string) float32) extensionFunc {
		return extensionFunc{name: name, params: two, result: boolean, volatility: 's', symbol: name,
			eval: func(x *execCtx, a []any) (any, error) {
				limit, err := trgmThreshold(x, setting)
				if err != nil {
					return nil, err
				}
				return float64(f(a[0].(string), a[1].(string))) >= limit, nil
			}}
	}
	swap := func(f func(a, b string) float32) func(a, b string) float32 {
		return func(a, b string) float32 { return f(b, a) }
	}
	registerExtension(&availableExtension{name: "pg_trgm", version: "1.6", library: "pg_trgm", relocatable: true,
		comment:       "text similarity measurement and index searching based on trigrams",
		otherVersions: []string{"1.3", "1.4", "1.5"},
		functions: []extensionFunc{
			{name: "set_limit", params: []funcParam{{typ: real, mode: 'i', arg: true}}, result: real, volatility: 'v',
				symbol: "set_limit", eval: trgmSetLimit},
			{name: "show_limit", result: real, volatility: 's', symbol: "show_limit",
				eval: func(x *execCtx, _ []any) (any, error) {
					limit, err := trgmThreshold(x, trgmSimilarityThreshold)
					return float64(float32(limit)), err
				}},
			{name: "show_trgm", params: two[:1], result: textArray, volatility: 'i', symbol: "show_trgm",
				eval: func(_ *execCtx, a []any) (any, error) {
					out := []any{}
					for _, t := range trgm.Trigrams(a[0].(string)) {
						out = append(out, t.String())
					}
					return out, nil
				}},
			measure("similarity", trgm.Similarity),
			atLeast("similarity_op", trgmSimilarityThreshold, trgm.Similarity),
			measure("word_similarity", trgm.WordSimilarity),
			atLeast("word_similarity_op", trgmWordSimilarityThreshold, trgm.WordSimilarity),
			atLeast("word_similarity_commutator_op", trgmWordSimilarityThreshold, swap(trgm.WordSimilarity)),
			distance("similarity_dist", trgm.Similarity),
			distance("word_similarity_dist_op", trgm.WordSimilarity),
			distance("word_similarity_dist_commutator_op", swap(trgm.WordSimilarity)),
			measure("strict_word_similarity", trgm.StrictWordSimilarity),
			atLeast("strict_word_similarity_op", trgmStrictWordSimilarityThreshold, trgm.StrictWordSimilarity),
			atLeast("strict_word_similarity_commutator_op", trgmStrictWordSimilarityThreshold, swap(trgm.StrictWordSimilarity)),
			distance("strict_word_similarity_dist_op", trgm.StrictWordSimilarity),
			distance("strict_word_similarity_dist_commutator_op", swap(trgm.StrictWordSimilarity)),
		},
		operators: []extensionOperator{
			{name: "%", left: text, right: text, proc: "similarity_op", commutator: "%"},
			// The script creates each operator after both functions of
			// its commutator pair, the commutator first (as the shell
			// operator the first one's COMMUTATOR makes).
			{name: "%>", left: text, right: text, proc: "word_similarity_commutator_op", commutator: "<%"},
			{name: "<%", left: text, right: text, proc: "word_similarity_op", commutator: "%>", after: "word_similarity_commutator_op"},
			{name: "<->", left: text, right: text, proc: "similarity_dist", commutator: "<->"},
			{name: "<->>", left: text, right: text, proc: "word_similarity_dist_commutator_op", commutator: "<<->"},
			{name: "<<->", left: text, right: text, proc: "word_similarity_dist_op", commutator: "<->>", after: "word_similarity_dist_commutator_op"},
			{name: "%>>", left: text, right: text, proc: "strict_word_similarity_commutator_op", commutator: "<<%"},
			{name: "<<%", left: text, right: text, proc: "strict_word_similarity_op", commutator: "%>>", after: "strict_word_similarity_commutator_op"},
			{name: "<->>>", left: text, right: text, proc: "strict_word_similarity_dist_commutator_op", commutator: "<<<->"},
			{name: "<<<->", left: text, right: text, proc: "strict_word_similarity_dist_op", commutator: "<->>>", after: "strict_word_similarity_dist_commutator_op"},
		},
		opclasses: []extensionOpclass{
			{name: "gist_trgm_ops", method: "gist", input: text, options: map[string]relOpt{"siglen": {kind: relOptInt, min: 1, max: 2024}},
				after: "word_similarity_dist_commutator_op"},
			{name: "gin_trgm_ops", method: "gin", input: text, after: "word_similarity_dist_commutator_op", keyType: types.Int4},
		},
	})
	// A threshold keeps the double its value reads as (the operators
	// compare with it) and shows it as PostgreSQL's real settings do, to
	// six significant digits.
	threshold := func(name, op, def string) librarySettingDef {
		check := realSetting(name, def, unitNone, 0, 1)
		exact := &settingDef{name: name, def: def, normalize: func(v string) (string, error) {
			if _, err := check.normalize(v); err != nil {
				return "", err
			}
			f, err := parseWithUnit(name, v, unitNone)
			return strconv.FormatFloat(f, 'g', -1, 64), err
		}}
		return librarySettingDef{settingDef: exact, show: func(v string) string {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				return strconv.FormatFloat(f, 'g', 6, 64)
			}
			return v
		}, short: "Sets the threshold used by the " + op + " operator.", extra: "Valid range is 0.0 .. 1.0.",
			vartype: "real", min: "0", max: "1"}
	}
	librarySettings["pg_trgm"] = &librarySetting{prefix: "pg_trgm", defs: []librarySettingDef{
		threshold(trgmSimilarityThreshold, "%", "0.3"),
		threshold(trgmWordSimilarityThreshold, "<%", "0.6"),
		threshold(trgmStrictWordSimilarityThreshold, "<<%", "0.5"),
	}}
}

// trgmThreshold is the session's value of threshold setting name (the
// library is loaded: one of its functions is running). Outside a session
// (nothing of fickle's evaluates these stable functions there) it refuses.
func trgmThreshold(x *execCtx, name string) (float64, error) {
	if x.s == nil {
		return 0, pgerror.Unsupported("pg_trgm's thresholds outside a session")
	}
	v, _ := x.s.settings.get(name)
	return strconv.ParseFloat(v, 64)
}

// trgmSetLimit is set_limit(real): SET pg_trgm.similarity_threshold to the
// value as real's output writes it (extra_float_digits' digits), then the
// threshold.
func trgmSetLimit(x *execCtx, a []any) (any, error) {
	if x.s == nil {
		return nil, pgerror.Unsupported("set_limit outside a session")
	}
	digits := -1 // the shortest text that reads back as the same real
	if v, _ := x.s.setting("extra_float_digits"); v != "" {
		if extra, err := strconv.Atoi(v); err == nil && extra <= 0 {
			digits = max(6+extra, 1)
		}
	}
	v := strconv.FormatFloat(a[0].(float64), 'g', digits, 32)
	if err := x.s.settings.set(trgmSimilarityThreshold, v, false); err != nil {
		return nil, err
	}
	limit, err := trgmThreshold(x, trgmSimilarityThreshold)
	return float64(float32(limit)), err
}
