package gallery

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"kleinbild/engine/imageio"
	"kleinbild/engine/schema"
)

// fuzzMTime is the modification time of the fuzzed gallery's image, fixed so that seeds
// holding its size and time take the index's trusted path.
var fuzzMTime = time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)

// FuzzIndex opens a gallery folder holding one Kleinbild PNG and a fuzzed
// index.json: whatever the index holds, the gallery must open, list exactly the image on
// disk, and leave an index that the next start reads without rebuilding.
func FuzzIndex(f *testing.F) {
	// One image, and the index a real start writes for it, as the first seed.
	png, err := imageio.EncodePNG(image.NewNRGBA(image.Rect(0, 0, 16, 16)),
		imageio.Metadata{Settings: schema.Settings{Prompt: "a castle", Seed: 3, Width: 16, Height: 16, Steps: 4}})
	if err != nil {
		f.Fatal(err)
	}
	setup := func(dir string, index []byte) error {
		p := filepath.Join(dir, "a.png")
		if err := os.WriteFile(p, png, 0o644); err != nil {
			return err
		}
		if err := os.Chtimes(p, fuzzMTime, fuzzMTime); err != nil {
			return err
		}
		if index == nil {
			return nil
		}
		return os.WriteFile(filepath.Join(dir, IndexName), index, 0o644)
	}
	seedDir := f.TempDir()
	if err := setup(seedDir, nil); err != nil {
		f.Fatal(err)
	}
	if _, _, err := Open(context.Background(), seedDir, Options{}); err != nil {
		f.Fatal(err)
	}
	valid, err := os.ReadFile(filepath.Join(seedDir, IndexName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(bytes.Replace(valid, []byte(`"a castle"`), []byte(`"`+strings.Repeat("x", 5000)+`"`), 1))
	f.Add(bytes.Replace(valid, []byte(`"a.png"`), []byte(`"../a.png"`), 1))
	f.Add(bytes.Replace(valid, []byte(`"has_meta":true`), []byte(`"has_meta":false`), 1))
	f.Add(bytes.Replace(valid, []byte(`"version":1`), []byte(`"version":2`), 1))
	f.Add([]byte(`{"version":1,"entries":[null,{"file":""},{"file":"a.png","size":-1},{"file":"b.png","sha256":"x"}]}`))
	f.Add([]byte(`{"version":1,"entries":[{"file":"a.png","meta":{"format":99}}]}`))
	f.Add([]byte(`{"version":1,"entries":[{"file":"a.png","meta":{"duration_s":1e300,"created":"0000-01-01T00:00:00Z"}}]}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(``))
	f.Add([]byte(strings.Repeat("[", 10000)))
	f.Add([]byte("\xff\xfe{"))
	f.Fuzz(func(t *testing.T, index []byte) {
		dir := t.TempDir()
		if err := setup(dir, index); err != nil {
			t.Fatal(err)
		}
		g, _, err := Open(context.Background(), dir, Options{})
		if err != nil {
			t.Fatalf("gallery did not open: %v", err)
		}
		if items := entries(g); len(items) != 1 || items[0].File != "a.png" {
			t.Fatalf("gallery lists %d images (%v), want a.png", len(items), items)
		}
		g2, rep, err := Open(context.Background(), dir, Options{})
		if err != nil {
			t.Fatalf("second start: %v", err)
		}
		if rep.Rebuilt {
			t.Fatalf("the index written by the first start is rebuilt by the second: %s", rep.Reason)
		}
		if a, b := entries(g), entries(g2); !reflect.DeepEqual(entryJSON(t, a), entryJSON(t, b)) {
			t.Fatalf("second start lists %v, first %v", b, a)
		}
	})
}

func entries(g *Gallery) []Entry {
	var out []Entry
	for i := range g.Len() {
		if e, ok := g.At(i); ok {
			out = append(out, e)
		}
	}
	return out
}

func entryJSON(t *testing.T, items []Entry) string {
	raw, err := json.Marshal(items)
	if err != nil {
		t.Fatalf("entries do not marshal: %v", err)
	}
	return string(raw)
}
