package tokenizer

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestScannerStrings(t *testing.T) {
	for _, raw := range []string{
		`"plain"`, `""`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u0120\u00e9\u65e5"`,
		`"\ud83c\udfa8 pair"`, `"\ud83c lone high"`, `"\udfa8 lone low"`, `"\ud83c\u0041 high then A"`,
		`"ĠĠ raw UTF-8 é"`,
	} {
		var want string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		sc := &jsonScanner{data: raw}
		got, err := sc.str()
		if err != nil || got != want || sc.pos != len(raw) {
			t.Errorf("str(%s) = %q, %v (pos %d); want %q like encoding/json", raw, got, err, sc.pos, want)
		}
	}
	for _, raw := range []string{`"open`, `"bad \x"`, `"short \u12"`, `"bad \u12zz"`, "\"ctl \x01\"", `x`, `"trailing \`} {
		sc := &jsonScanner{data: raw}
		if s, err := sc.str(); err == nil {
			t.Errorf("str(%q) = %q, want an error", raw, s)
		}
	}
}

func TestScannerSkip(t *testing.T) {
	doc := ` {"a": [1, 2.5e3, {"b": null}, "x\"y"], "c": true, "d": {}} `
	sc := &jsonScanner{data: doc}
	var raws []string
	err := sc.object(func(key string) error {
		raw, err := sc.skip()
		raws = append(raws, key+"="+raw)
		return err
	})
	if err != nil || sc.end() != nil {
		t.Fatalf("object: %v", err)
	}
	want := `a=[1, 2.5e3, {"b": null}, "x\"y"]|c=true|d={}`
	if got := strings.Join(raws, "|"); got != want {
		t.Errorf("skip raw values %q, want %q", got, want)
	}
	for _, bad := range []string{`{"a" 1}`, `{"a": [1 2]}`, `{"a": 1,}`, `[`, `{"a": }`} {
		sc := &jsonScanner{data: bad}
		if _, err := sc.skip(); err == nil {
			t.Errorf("skip(%q) succeeded", bad)
		}
	}
}
