package imageio

import (
	"bytes"
	"compress/zlib"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"kleinbild/engine/schema"
	"kleinbild/weights/golden"
)

func sampleImage() *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 37, 21))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	return img
}

func sampleMeta() Metadata {
	return Metadata{
		Settings: schema.Settings{Prompt: "Ünïcödé & émojis 🎨🚀 test — 日本語のテキスト\twith\ttabs\nand a newline", NegativePrompt: "blurry, “low quality”", Seed: 18446744073709551557, Width: 37, Height: 21, Steps: 4, Guidance: 1.5, Schedule: "flow",
			References: []string{"/tmp/ref ä.png"}},
		Model:     "FLUX.2-klein-4B",
		Variant:   "distilled",
		Hashes:    map[string]string{"/tmp/ref ä.png": strings.Repeat("ab", 32)},
		Software:  "kleinbild test",
		Created:   time.Date(2025, 3, 14, 15, 9, 26, 535897932, time.FixedZone("CET", 3600)),
		Duration:  12*time.Second + 345678901,
		Precision: "fast",
	}
}

// textChunks returns the tEXt/iTXt keyword -> text of a PNG (uncompressed chunks only).
func textChunks(t *testing.T, data []byte) map[string]string {
	t.Helper()
	out := map[string]string{}
	p := data[8:]
	for len(p) >= 12 {
		n := int(uint32(p[0])<<24 | uint32(p[1])<<16 | uint32(p[2])<<8 | uint32(p[3]))
		typ, body := string(p[4:8]), p[8:8+n]
		switch typ {
		case "tEXt":
			k, v, _ := bytes.Cut(body, []byte{0})
			r := make([]rune, len(v)) // Latin-1
			for i, c := range v {
				r[i] = rune(c)
			}
			out[string(k)] = string(r)
		case "iTXt":
			k, rest, _ := bytes.Cut(body, []byte{0})
			_, rest, _ = bytes.Cut(rest[2:], []byte{0})
			_, rest, _ = bytes.Cut(rest, []byte{0})
			out[string(k)] = string(rest)
		}
		p = p[12+n:]
	}
	return out
}

func TestMetadataRoundTrip(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.png")
	img, meta := sampleImage(), sampleMeta()
	if err := WritePNG(path, img, meta); err != nil {
		t.Fatal(err)
	}
	got, ok, err := ReadMetadata(path)
	if err != nil || !ok {
		t.Fatalf("ReadMetadata: ok=%v err=%v", ok, err)
	}
	if !got.Created.Equal(meta.Created) {
		t.Errorf("Created %v, want %v", got.Created, meta.Created)
	}
	got.Created = meta.Created
	if !reflect.DeepEqual(got, meta) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, meta)
	}

	// The pixels are untouched and the file is a valid PNG for other decoders.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for y := 0; y < 21; y++ {
		for x := 0; x < 37; x++ {
			if color.RGBAModel.Convert(dec.At(x, y)) != img.At(x, y) {
				t.Fatalf("pixel %d,%d changed", x, y)
			}
		}
	}
	// Readable chunks for other tools.
	txt := textChunks(t, data)
	for k, want := range map[string]string{
		"prompt": meta.Prompt, "negative_prompt": meta.NegativePrompt, "seed": "18446744073709551557",
		"steps": "4", "guidance": "1.5", "size": "37x21", "schedule": "flow",
		"model": "FLUX.2-klein-4B", "Software": "kleinbild test", "Creation Time": "2025-03-14T15:09:26+01:00",
	} {
		if txt[k] != want {
			t.Errorf("chunk %q = %q, want %q", k, txt[k], want)
		}
	}
	if p := txt["parameters"]; !strings.HasPrefix(p, meta.Prompt+"\nNegative prompt: "+meta.NegativePrompt+"\nSteps: 4, Sampler: Euler") ||
		!strings.Contains(p, "Seed: 18446744073709551557, Size: 37x21") {
		t.Errorf("parameters = %q", p)
	}
	if !strings.Contains(txt[MetadataKey], `"prompt":"Ünïcödé & émojis 🎨🚀`) {
		t.Errorf("JSON chunk = %q", txt[MetadataKey])
	}

	// Overwriting keeps working (atomic rename over an existing file); no temp files remain.
	meta.Seed = 7
	if err := WritePNG(path, img, meta); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := ReadMetadata(path); got.Seed != 7 {
		t.Errorf("overwrite: seed %d", got.Seed)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(ents))
	}
	if err := WritePNG(filepath.Join(dir, "missing", "x.png"), img, meta); err == nil {
		t.Error("write into a missing folder: no error")
	}
	if err := WritePNG(path, nil, meta); err == nil {
		t.Error("nil image: no error")
	}
}

func TestMetadataZeroAndCompressed(t *testing.T) {
	// A zero Metadata round-trips too (no optional chunks written).
	data, err := EncodePNG(sampleImage(), Metadata{})
	if err != nil {
		t.Fatal(err)
	}
	got, ok, err := ReadMetadataFrom(bytes.NewReader(data))
	if err != nil || !ok || !reflect.DeepEqual(got, Metadata{}) {
		t.Fatalf("zero: %+v ok=%v err=%v", got, ok, err)
	}
	// A compressed iTXt (as other tools may rewrite it) is read too.
	js, _ := sampleMeta().MarshalJSON()
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(js)
	zw.Close()
	var b bytes.Buffer
	b.Write(data[:33])
	writeChunk(&b, "iTXt", append([]byte(MetadataKey+"\x00\x01\x00en\x00\x00"), z.Bytes()...))
	b.Write(skipOwnChunks(t, data[33:]))
	got, ok, err = ReadMetadataFrom(&b)
	if err != nil || !ok || got.Prompt != sampleMeta().Prompt {
		t.Fatalf("compressed: %+v ok=%v err=%v", got, ok, err)
	}
}

// skipOwnChunks drops the iTXt chunk with the Kleinbild key from a chunk stream.
func skipOwnChunks(t *testing.T, p []byte) []byte {
	t.Helper()
	var out []byte
	for len(p) >= 12 {
		n := int(uint32(p[0])<<24 | uint32(p[1])<<16 | uint32(p[2])<<8 | uint32(p[3]))
		if !(string(p[4:8]) == "iTXt" && bytes.HasPrefix(p[8:], []byte(MetadataKey+"\x00"))) {
			out = append(out, p[:12+n]...)
		}
		p = p[12+n:]
	}
	return out
}

func TestReadMetadataPlainPNG(t *testing.T) {
	m, ok, err := ReadMetadata(golden.Path(t, "pipeline", "i2i_ref_83x69.png"))
	if err != nil || ok {
		t.Fatalf("golden PNG: ok=%v err=%v", ok, err)
	}
	if !reflect.DeepEqual(m, Metadata{}) {
		t.Fatalf("metadata %+v", m)
	}
	var b bytes.Buffer
	png.Encode(&b, sampleImage())
	if _, ok, err := ReadMetadataFrom(&b); err != nil || ok {
		t.Fatalf("plain PNG: ok=%v err=%v", ok, err)
	}
}

func TestReadMetadataDamaged(t *testing.T) {
	good, err := EncodePNG(sampleImage(), sampleMeta())
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte {
		d := append([]byte(nil), good...)
		d[i] ^= 0x20
		return d
	}
	set := func(i int, v byte) []byte {
		d := append([]byte(nil), good...)
		d[i] = v
		return d
	}
	badJSON := new(bytes.Buffer)
	badJSON.Write(good[:33])
	writeChunk(badJSON, "iTXt", []byte(MetadataKey+"\x00\x00\x00\x00\x00{\"seed\": \"x\"}"))
	badJSON.Write(skipOwnChunks(t, good[33:]))
	huge := new(bytes.Buffer)
	huge.Write(good[:33])
	huge.Write([]byte{0xff, 0xff, 0xff, 0xff, 'i', 'T', 'X', 't'})
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "not a PNG"},
		{"jpeg", []byte{0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 'J', 'F', 'I', 'F', 0}, "signature"},
		{"truncated", good[:len(good)-7], "truncated"},
		{"truncated in metadata", good[:60], "truncated"},
		{"no IEND", good[:len(good)-12], "truncated"},
		{"bad CRC in metadata", flip(70), "CRC"},
		{"bad CRC in pixels", flip(len(good) - 20), "CRC"},
		{"bad chunk type", set(37, '#'), "chunk type"},
		{"chunk length", huge.Bytes(), "length"},
		{"bad JSON", badJSON.Bytes(), "metadata"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, ok, err := ReadMetadataFrom(bytes.NewReader(tc.data))
			if err == nil || ok || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ok=%v err=%v, want an error mentioning %q", ok, err, tc.want)
			}
		})
	}
	path := writeTemp(t, "cut.png", good[:len(good)/2])
	if _, _, err := ReadMetadata(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("truncated file: %v (should name the file)", err)
	}
}

func TestSHA256File(t *testing.T) {
	data := []byte("kleinbild reference")
	p := writeTemp(t, "ref.bin", data)
	sum, err := SHA256File(p)
	want := sha256.Sum256(data)
	if err != nil || sum != hex.EncodeToString(want[:]) {
		t.Fatalf("SHA256File = %q, %v", sum, err)
	}
	if _, err := SHA256File(filepath.Join(t.TempDir(), "nope")); err == nil {
		t.Fatal("missing file: no error")
	}
}

func FuzzReadMetadata(f *testing.F) {
	good, err := EncodePNG(sampleImage(), sampleMeta())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:100])
	f.Add([]byte(pngSignature))
	var plain bytes.Buffer
	png.Encode(&plain, image.NewGray(image.Rect(0, 0, 3, 2)))
	f.Add(plain.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		m, ok, err := ReadMetadataFrom(bytes.NewReader(data))
		if err != nil && (ok || !reflect.DeepEqual(m, Metadata{})) {
			t.Fatalf("error %v with ok=%v / metadata %+v", err, ok, m)
		}
	})
}

// Issue 35: Metadata embeds schema.Settings, and the JSON it stores is still the layout of
// c20726f, byte for byte: each of its images' chunk, read and written again, is the same.
func TestOldLayoutKept(t *testing.T) {
	for _, name := range []string{"c20726f-t2i.png", "c20726f-inpaint.png", "c20726f-outpaint.png"} {
		data, err := os.ReadFile(filepath.Join("../../testdata/saved", name))
		if err != nil {
			t.Fatal(err)
		}
		old := textChunks(t, data)[MetadataKey]
		var m Metadata
		if err := json.Unmarshal([]byte(old), &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		again, err := m.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != old {
			t.Errorf("%s: written again as\n%s\nwas\n%s", name, again, old)
		}
	}
}

// A Settings field is stored under its own JSON key where the layout has no place for it
// (appendOtherSettings): that key must not be one of the layout's own, or it would be
// written twice. The layout's keys for settings are listed in layoutKeys.
func TestSettingsKeysFitTheLayout(t *testing.T) {
	layout := map[string]bool{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[metadataJSON]()) {
		layout[strings.Split(f.Tag.Get("json"), ",")[0]] = true
	}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[schema.Settings]()) {
		key := strings.Split(f.Tag.Get("json"), ",")[0]
		if layout[key] && !layoutKeys[key] {
			t.Errorf("Settings.%s's key %q is the layout's own key for something else", f.Name, key)
		}
	}
	for key := range layoutKeys {
		if _, ok := reflect.TypeFor[schema.Settings]().FieldByNameFunc(func(n string) bool {
			f, _ := reflect.TypeFor[schema.Settings]().FieldByName(n)
			return strings.Split(f.Tag.Get("json"), ",")[0] == key
		}); !ok {
			t.Errorf("layoutKeys holds %q, which is no Settings key", key)
		}
	}
}
