package widgets

import (
	"encoding/binary"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// monoDescentGrowth is what the monospace font's descent grows by, in em: its underscore
// reaches exactly its descent, and Fyne draws a text into a texture of the text's height
// with the baseline rounded up to a whole pixel, so the underscore was cut off
// ("model_index.json" read "model index.json"; issue 36 item 20).
const monoDescentGrowth = 0.125

// monoFont is Fyne's monospace font with monoDescentGrowth more descent (the glyphs are
// unchanged); Fyne's own font where its tables cannot be read.
var monoFont = sync.OnceValue(func() fyne.Resource {
	res := theme.DefaultTheme().Font(fyne.TextStyle{Monospace: true})
	b, ok := withMoreDescent(res.Content(), monoDescentGrowth)
	if !ok {
		return res
	}
	return fyne.NewStaticResource("kleinbild-"+res.Name(), b)
})

// withMoreDescent returns a copy of the TrueType/OpenType font ttf whose descent (hhea's
// descender, OS/2's typographic and Windows descents) is grow em deeper; ok is false when
// the tables are not where the format puts them.
func withMoreDescent(ttf []byte, grow float64) (out []byte, ok bool) {
	tables := map[string][]byte{}
	if len(ttf) < 12 {
		return nil, false
	}
	out = append([]byte(nil), ttf...)
	n := int(binary.BigEndian.Uint16(out[4:]))
	for i := range n {
		rec := 12 + 16*i
		if rec+16 > len(out) {
			return nil, false
		}
		off, size := int(binary.BigEndian.Uint32(out[rec+8:])), int(binary.BigEndian.Uint32(out[rec+12:]))
		if off < 0 || size < 0 || off+size > len(out) {
			return nil, false
		}
		tables[string(out[rec:rec+4])] = out[off : off+size]
	}
	head, hhea, os2 := tables["head"], tables["hhea"], tables["OS/2"]
	if len(head) < 20 || len(hhea) < 8 || len(os2) < 78 {
		return nil, false
	}
	d := int(grow * float64(binary.BigEndian.Uint16(head[18:]))) // unitsPerEm
	add := func(b []byte, by int) {
		binary.BigEndian.PutUint16(b, uint16(int16(binary.BigEndian.Uint16(b))+int16(by)))
	}
	add(hhea[6:], -d) // descender, negative
	add(os2[70:], -d) // sTypoDescender, negative
	add(os2[76:], d)  // usWinDescent, positive
	return out, true
}
