package download

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"kleinbild/engine/source"
)

// FuzzParseListing feeds the Hub API listing parser: it must never panic, and what it
// accepts must be safe to plan and write (valid names, bounded sizes, sorted, unique).
func FuzzParseListing(f *testing.F) {
	ok := strings.Repeat("a", 64)
	f.Add(listingJSON("false", ok))
	f.Add(listingJSON(`"manual"`, strings.Repeat("B", 64)))
	f.Add(listingJSON("null", "xyz"))
	// Small fakehub listings (large seeds make the fuzzer's minimization slow).
	files := map[string]*fakeFile{}
	for _, p := range append(source.RequiredFiles(), "transformer/a.safetensors", "text_encoder/b.safetensors", "README.md") {
		files[p] = &fakeFile{data: []byte("x"), lfs: strings.HasSuffix(p, ".safetensors")}
	}
	f.Add((&fakeHub{repo: "o/m", files: files}).listing())
	files["vae/c.safetensors"] = &fakeFile{data: []byte("y"), lfs: true, listedSize: 1 << 52}
	f.Add((&fakeHub{repo: "o/m", files: files}).listing())
	f.Add(listingWithExtra(`"tokenizer/\u001b[2J.json"`))
	f.Add(listingWithExtra("\"tokenizer/\xff.json\""))
	f.Add(listingWithExtra(`"tokenizer/a\u0000.json"`))
	f.Add(listingWithExtra(`"../model_index.json"`))
	f.Add([]byte(`{"siblings": [{"rfilename": "vae/config.json", "size": -1}]}`))
	f.Add([]byte(`{"siblings": [{"rfilename": "vae/config.json"}]}`))
	f.Add([]byte(`{"siblings": null, "gated": {}}`))
	f.Add([]byte(`[[[[[[[[[[`))
	f.Add([]byte(``))
	f.Add((&fakeHub{repo: "o/m", files: map[string]*fakeFile{"flux-2-klein-4b-Q8_0.gguf": {data: []byte("GGUF"), lfs: true}}}).listing())
	parts := Assembled()[0].Parts
	f.Fuzz(func(t *testing.T, body []byte) {
		// The assembled downloads' selections (one file of a GGUF repository; the official
		// repository's VAE and tokenizer) keep only safe names they ask for.
		for _, pt := range parts {
			sel := pt.selection()
			if l, err := parseListingSel("o/m", body, sel); err == nil {
				for _, file := range l.Files {
					if err := checkName(file.Path); err != nil || !sel.needed(file.Path) || checkSize(file.Size) != nil {
						t.Fatalf("part %s accepted %q (%d bytes): %v", pt.Repo, file.Path, file.Size, err)
					}
				}
			}
		}
		l, err := parseListing("o/m", body)
		if err != nil {
			if !printable(err.Error()) {
				t.Fatalf("error with raw control characters: %q", err)
			}
			return
		}
		if len(l.Files) > maxListedFiles {
			t.Fatalf("%d files accepted", len(l.Files))
		}
		if !slices.IsSortedFunc(l.Files, func(a, b RemoteFile) int { return strings.Compare(a.Path, b.Path) }) {
			t.Fatal("files not sorted")
		}
		for i, file := range l.Files {
			if err := checkName(file.Path); err != nil || !Needed(file.Path) {
				t.Fatalf("accepted name %q: %v", file.Path, err)
			}
			if i > 0 && l.Files[i-1].Path == file.Path {
				t.Fatalf("%q listed twice", file.Path)
			}
			if err := checkSize(file.Size); err != nil {
				t.Fatalf("accepted %s: %v", file.Path, err)
			}
			if file.SHA256 != "" && (len(file.SHA256) != 64 || !hexRE.MatchString(file.SHA256)) {
				t.Fatalf("accepted sha256 %q", file.SHA256)
			}
		}
		if l.TotalBytes() < 0 {
			t.Fatal("total size overflows")
		}
		if l.Commit != "" && !hexRE.MatchString(l.Commit) {
			t.Fatalf("accepted commit %q", l.Commit)
		}
	})
}

// FuzzPartState feeds the part state parser: it must never panic, and an accepted state must
// describe sorted, disjoint ranges inside a bounded file and survive a round trip.
func FuzzPartState(f *testing.F) {
	seed := func(s partState) []byte {
		b, _ := json.MarshalIndent(s, "", " ")
		return b
	}
	s := newPartState(RemoteFile{Path: "transformer/diffusion_pytorch_model.safetensors", Size: 1000, SHA256: strings.Repeat("a", 64)})
	f.Add(seed(s))
	s.ETag = `"abc"`
	s.add(0, 100)
	s.add(200, 300)
	f.Add(seed(s))
	s.Done = append(s.Done, [2]int64{250, 2000})
	f.Add(seed(s))
	f.Add(seed(newPartState(RemoteFile{Path: "vae/x.safetensors", Size: 1 << 52})))
	f.Add(seed(newPartState(RemoteFile{Path: "tokenizer/\x1b.json", Size: 1})))
	f.Add([]byte(`{"version": 1, "path": "a", "size": 10, "done": [[5, 2]]}`))
	f.Add([]byte(`{"version": 1, "path": "a", "size": 10, "done": [[-5, 2]]}`))
	f.Add([]byte(`{"version": 1, "path": "a", "size": 10, "done": null}`))
	f.Add([]byte(`{"version": 1, "path": "a", "size": 9223372036854775807}`))
	f.Add([]byte(`{"version": 2}`))
	f.Add([]byte(`{"done": [[1]]}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := parsePartState(raw)
		if err != nil {
			if !printable(err.Error()) {
				t.Fatalf("error with raw control characters: %q", err)
			}
			return
		}
		if !s.valid() || checkName(s.Path) != nil || checkSize(s.Size) != nil || len(s.Done) > maxStateRanges {
			t.Fatalf("accepted %+v", s)
		}
		done := s.doneBytes()
		var missing, requests int64
		for _, g := range s.gaps() {
			missing += g[1] - g[0]
			requests += job{kind: jobRange, lo: g[0], hi: g[1]}.count(32 << 20)
		}
		if done < 0 || done+missing != s.Size || requests > s.Size/(32<<20)+int64(len(s.Done))+1 {
			t.Fatalf("%d done + %d missing bytes (%d requests) of %d", done, missing, requests, s.Size)
		}
		again, err := parsePartState(seed(s))
		if err != nil || !reflect.DeepEqual(again, s) {
			t.Fatalf("round trip: %+v, %v; want %+v", again, err, s)
		}
	})
}
