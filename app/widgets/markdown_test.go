package widgets

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/widget"
)

// Issue 28 item 10: code in brackets shows without a stray space ("( model_index.json)");
// a space that belongs before code stays.
func TestMarkdownCodeSpaces(t *testing.T) {
	rt := Markdown("A diffusers folder (`model_index.json`), a ComfyUI `models` folder")
	var b strings.Builder
	for _, s := range rt.Segments {
		if p, ok := s.(*widget.ParagraphSegment); ok {
			for _, c := range p.Texts {
				b.WriteString(c.Textual())
			}
			continue
		}
		b.WriteString(s.Textual())
	}
	if got, want := b.String(), "A diffusers folder (model_index.json), a ComfyUI models folder"; got != want {
		t.Errorf("shows %q, want %q", got, want)
	}
}
