package widgets

import (
	"testing"
	"unicode/utf8"
)

// TestShortName: long names keep their start, the end of their stem and their extension
// within n runes; short ones, and any rune, come through whole.
func TestShortName(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		want string
	}{
		{"lora_bfl_final_layer_adaln_r4.safetensors", 28, "lora_bfl_f…ln_r4.safetensors"},
		{"lora_kohya_r2_a1.safetensors", 28, "lora_kohya_r2_a1.safetensors"},
		{"ÄÖÜäöüßÄÖÜäöüß.png", 10, "ÄÖÜä…ß.png"},
		{"no-extension-at-all-but-long", 12, "no-exten…ong"},
		{"a.verylongextensionname", 10, "a.very…ame"},
	} {
		got := ShortName(c.name, c.n)
		if got != c.want || utf8.RuneCountInString(got) > max(c.n, 8) {
			t.Errorf("ShortName(%q, %d) = %q, want %q", c.name, c.n, got, c.want)
		}
	}
}
