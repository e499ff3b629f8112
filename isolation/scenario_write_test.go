package isolation

import "strings"

// cmdWrite writes a row: write s1 x=1 (Update), insert s1 x=1 (Insert).
func (e *scenarioEnv) cmdWrite(a scenarioArgs) string {
	tx, msg := e.txn(a)
	if tx == nil {
		return msg
	}
	var out []string
	for _, kv := range a.words[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return "want key=value"
		}
		var err error
		if a.verb == "insert" {
			_, err = tx.Insert(bg, e.tab, []byte(k), []any{atoiOr(v, 0)})
		} else {
			err = tx.Update(bg, e.tab, []byte(k), []any{atoiOr(v, 0)})
		}
		if err != nil {
			return errString(err)
		}
		out = append(out, "ok")
	}
	return strings.Join(out, " ")
}

// cmdDelete deletes a row: delete s1 x.
func (e *scenarioEnv) cmdDelete(a scenarioArgs) string {
	tx, msg := e.txn(a)
	if tx == nil {
		return msg
	}
	if len(a.words) < 2 {
		return "missing key"
	}
	if err := tx.Delete(bg, e.tab, []byte(a.words[1])); err != nil {
		return errString(err)
	}
	return "ok"
}
