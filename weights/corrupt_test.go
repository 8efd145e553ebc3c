package weights_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// stImage is a safetensors file split into its decoded header and data section.
type stImage struct {
	header map[string]map[string]any // tensor name -> entry (metadata kept separately)
	meta   map[string]string
	body   []byte
}

// splitImage decodes a valid image; it panics on invalid input (test data only).
func splitImage(data []byte) stImage {
	n := binary.LittleEndian.Uint64(data)
	var raw map[string]json.RawMessage
	must(json.Unmarshal(data[8:8+n], &raw))
	img := stImage{header: map[string]map[string]any{}, body: data[8+n:]}
	for k, v := range raw {
		if k == "__metadata__" {
			must(json.Unmarshal(v, &img.meta))
			continue
		}
		var e map[string]any
		must(json.Unmarshal(v, &e))
		img.header[k] = e
	}
	return img
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// clone deep-copies the header (the body is shared: replace it, do not modify it).
func (img stImage) clone() stImage {
	out := stImage{meta: img.meta, body: img.body}
	raw, err := json.Marshal(img.header)
	must(err)
	must(json.Unmarshal(raw, &out.header))
	return out
}

// bytes assembles the image, with the header text given by hdr when non-nil.
func (img stImage) bytes(hdr []byte) []byte {
	if hdr == nil {
		m := map[string]any{}
		for k, v := range img.header {
			m[k] = v
		}
		if img.meta != nil {
			m["__metadata__"] = img.meta
		}
		var err error
		hdr, err = json.Marshal(m)
		must(err)
	}
	return assemble(hdr, img.body)
}

func assemble(hdr, body []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(hdr)))
	out = append(out, hdr...)
	return append(out, body...)
}

func withHeaderLen(data []byte, n uint64) []byte {
	out := bytes.Clone(data)
	binary.LittleEndian.PutUint64(out, n)
	return out
}

// corruption is one damaged variant of a file; its error must contain want.
type corruption struct {
	name string
	data []byte
	want []string
}

// offsets returns a tensor's data_offsets.
func offsets(e map[string]any) (lo, hi float64) {
	o := e["data_offsets"].([]any)
	return o[0].(float64), o[1].(float64)
}

// firstLast returns the tensors with the lowest and highest offsets.
func firstLast(img stImage) (first, last string) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for k, e := range img.header {
		a, _ := offsets(e)
		if a < lo {
			lo, first = a, k
		}
		if a > hi {
			hi, last = a, k
		}
	}
	return first, last
}

// corruptions builds damaged variants of a valid safetensors image: truncations, bad header
// lengths, malformed or non-object JSON, duplicate keys, bad metadata, unknown dtypes,
// mismatched shapes, out-of-range and overlapping offsets, gaps and trailing garbage.
func corruptions(data []byte) []corruption {
	img := splitImage(data)
	hlen := int(binary.LittleEndian.Uint64(data))
	first, last := firstLast(img)
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	var cs []corruption
	add := func(name string, d []byte, want ...string) {
		cs = append(cs, corruption{name, d, want})
	}
	for _, n := range []int{0, 1, 7, 8, 9, 8 + hlen/2, 8 + hlen - 1, 8 + hlen, 8 + hlen + 1, len(data) / 2, len(data) - 1} {
		add(fmt.Sprintf("truncated at %d", n), bytes.Clone(data[:n]))
	}
	add("header length past the end", withHeaderLen(data, uint64(len(data))), "runs past the end")
	add("header length over the limit", withHeaderLen(data, weights.MaxHeaderBytes+1), "exceeds")
	add("header length 2^64-1", withHeaderLen(data, math.MaxUint64), "exceeds")
	add("header length zero", withHeaderLen(data, 0), "does not start with '{'")
	add("header length one short", withHeaderLen(data, uint64(hlen-1)))
	add("header length one long", withHeaderLen(data, uint64(hlen+1)))

	hdr := data[8 : 8+hlen]
	end := bytes.LastIndexByte(hdr, '}')
	mod := func(f func(h []byte) []byte) []byte { return assemble(f(bytes.Clone(hdr)), img.body) }
	add("missing closing brace", mod(func(h []byte) []byte { h[end] = ' '; return h }), "malformed JSON")
	add("extra comma", mod(func(h []byte) []byte { return append(h[:end:end], ",}"...) }), "malformed JSON")
	add("single quotes", mod(func(h []byte) []byte { return bytes.ReplaceAll(h, []byte(`"`), []byte(`'`)) }), "malformed JSON")
	add("data after the object", mod(func(h []byte) []byte { return append(h[:end+1:end+1], " {}"...) }), "after the JSON object")
	add("invalid UTF-8", mod(func(h []byte) []byte { h[bytes.IndexByte(h, '"')+1] = 0xff; return h }), "UTF-8")
	for _, h := range []string{"[]", "null", `"x"`, "1", " {}", ""} {
		add("header "+h, assemble([]byte(h), img.body), "does not start with '{'")
	}
	add("duplicate tensor", assemble([]byte(`{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}`), []byte{1, 2}), "duplicate key", `"a"`)
	add("duplicate field", assemble([]byte(`{"a":{"dtype":"U8","shape":[1],"shape":[2],"data_offsets":[0,2]}}`), []byte{1, 2}), "duplicate key", `"shape"`)
	add("empty object body", assemble([]byte(`{}`), img.body), "after a header that lists no tensors")

	meta := func(name, m string, want ...string) {
		h := bytes.Clone(hdr[:end])
		h = append(h, `,"__metadata__":`+m+`}`...)
		add(name, assemble(h, img.body), want...)
	}
	if img.meta == nil {
		meta("metadata number value", `{"format":1}`, "__metadata__", "number")
		meta("metadata nested object", `{"format":{"a":"b"}}`, "__metadata__", "object")
		meta("metadata array", `["pt"]`, "__metadata__", "object")
		meta("metadata duplicate key", `{"a":"b","a":"c"}`, "__metadata__", "duplicate key")
		meta("tensor named __metadata__", `{"dtype":"U8","shape":[0],"data_offsets":[0,0]}`, "__metadata__", "strings to strings")
	}

	edit := func(name, tensor string, f func(e map[string]any), want ...string) {
		c := img.clone()
		f(c.header[tensor])
		add(name, c.bytes(nil), append([]string{q(tensor)}, want...)...)
	}
	for _, dt := range []string{"F64", "I32", "BOOL", "bf16", "", "F8_E4M3"} {
		edit("dtype "+dt, last, func(e map[string]any) { e["dtype"] = dt }, "unsupported dtype")
	}
	edit("dtype null", last, func(e map[string]any) { e["dtype"] = nil }, "dtype", "null")
	for name, shape := range map[string]any{
		"negative dimension": []any{-1, 4},
		"fractional dim":     []any{1.5},
		"string dim":         []any{"3"},
		"shape null":         nil,
		"shape number":       3,
		"overflowing shape":  []any{int64(1) << 40, int64(1) << 40},
		"overflow then zero": []any{int64(1) << 40, int64(1) << 40, 0},
		"huge bytes":         []any{int64(1) << 61},
		"dim over int64":     []any{json.Number("9223372036854775808")},
	} {
		edit(name, first, func(e map[string]any) { e["shape"] = shape })
	}
	edit("no shape", first, func(e map[string]any) { delete(e, "shape") }, `"shape"`)
	edit("no dtype", first, func(e map[string]any) { delete(e, "dtype") }, `"dtype"`)
	edit("no data_offsets", first, func(e map[string]any) { delete(e, "data_offsets") }, `"data_offsets"`)
	edit("three offsets", first, func(e map[string]any) { e["data_offsets"] = []any{0, 4, 8} }, "2 entries")
	edit("negative offset", first, func(e map[string]any) { e["data_offsets"] = []any{-4, 4} }, "data_offsets")
	edit("string offsets", first, func(e map[string]any) { e["data_offsets"] = []any{"0", "4"} }, "data_offsets")
	edit("reversed offsets", first, func(e map[string]any) { lo, hi := offsets(e); e["data_offsets"] = []any{hi, lo} }, "end before they start")
	edit("range outside the data", last, func(e map[string]any) {
		lo, hi := offsets(e)
		e["data_offsets"] = []any{lo + 8, hi + 8}
	}, "outside")
	edit("range far outside", last, func(e map[string]any) { e["data_offsets"] = []any{0, float64(math.MaxInt64)} }, "outside")
	edit("shape needs more bytes", first, func(e map[string]any) {
		s := e["shape"].([]any)
		if len(s) == 0 {
			e["shape"] = []any{2}
		} else {
			s[0] = s[0].(float64) + 1
		}
	}, "needs")
	edit("dtype size mismatch", first, func(e map[string]any) {
		if e["dtype"] == "U8" {
			e["dtype"] = "I64"
		} else {
			e["dtype"] = "U8"
		}
	}, "needs")
	edit("scalar of wrong size", first, func(e map[string]any) { e["shape"] = []any{} }, "needs")
	edit("empty entry", first, func(e map[string]any) {
		for k := range e {
			delete(e, k)
		}
	}, `no "dtype"`)
	b, _ := json.Marshal(map[string]any{first: 5})
	add("entry not an object", assemble(b, nil), q(first), "object")

	// Layout: the tensors must tile the data section exactly.
	if len(img.header) > 1 {
		c := img.clone()
		lo, hi := offsets(c.header[last])
		c.header[last]["data_offsets"] = []any{lo - 4, hi - 4}
		add("overlapping tensors", c.bytes(nil), q(last), "overlap")
		c = img.clone()
		for k := range c.header {
			if k != last {
				c.header[k]["data_offsets"] = c.header[last]["data_offsets"]
				c.header[k]["shape"] = c.header[last]["shape"]
				c.header[k]["dtype"] = c.header[last]["dtype"]
				add("two tensors on the same bytes", c.bytes(nil), "overlap")
				break
			}
		}
		c = img.clone()
		delete(c.header, first)
		add("unused bytes at the start", c.bytes(nil), "unused bytes")
	}
	{
		c := img.clone()
		lo, _ := offsets(c.header[last])
		c.header["zero"] = map[string]any{"dtype": "F32", "shape": []any{0, 3}, "data_offsets": []any{lo + 1, lo + 1}}
		add("zero-size tensor inside another", c.bytes(nil), `"zero"`, "overlap")
	}
	{
		c := img.clone()
		c.body = append(bytes.Clone(img.body), "garbage!"...)
		add("trailing garbage", c.bytes(nil), "8 bytes after the last tensor")
	}
	return cs
}

// TestCorruptFiles damages golden files in every way corruptions knows and checks that
// OpenFile, Open and ParseBytes all fail with an error naming the file (and tensor).
func TestCorruptFiles(t *testing.T) {
	for _, rel := range []string{"vae/decode_32x48.safetensors", "image_processor/large_1100x1000.safetensors", "model/tiny-flux2-klein/transformer/diffusion_pytorch_model.safetensors"} {
		data, err := os.ReadFile(golden.Path(t, rel))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		cs := corruptions(data)
		for i, c := range cs {
			path := filepath.Join(dir, fmt.Sprintf("case%02d.safetensors", i))
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, open := range []struct {
				name string
				fn   func() error
			}{
				{"OpenFile", func() error {
					f, err := weights.OpenFile(path)
					if err == nil {
						f.Close()
					}
					return err
				}},
				{"Open", func() error {
					c, err := weights.Open(path)
					if err == nil {
						c.Close()
					}
					return err
				}},
				{"ParseBytes", func() error { _, err := weights.ParseBytes(path, c.data); return err }},
			} {
				err := open.fn()
				if err == nil {
					t.Errorf("%s / %s: %s succeeded", rel, c.name, open.name)
					continue
				}
				for _, w := range append([]string{path}, c.want...) {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("%s / %s: %s error %q lacks %q", rel, c.name, open.name, err, w)
					}
				}
			}
		}
		t.Logf("%s: %d corrupted variants rejected", rel, len(cs))
	}
}

// TestValidEdgeCases checks files the format allows: zero-size tensors, scalars, an empty
// header, null or empty metadata, extra fields in an entry, header padding.
func TestValidEdgeCases(t *testing.T) {
	cases := []struct {
		name, hdr string
		body      []byte
		tensors   int
	}{
		{"empty", `{}`, nil, 0},
		{"empty padded", `{}      `, nil, 0},
		{"null metadata", `{"__metadata__":null}`, nil, 0},
		{"empty metadata", `{"__metadata__":{}}`, nil, 0},
		{"zero-size only", `{"z":{"dtype":"F32","shape":[0,4],"data_offsets":[0,0]}}`, nil, 1},
		{"zero-size between", `{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"z":{"dtype":"BF16","shape":[3,0],"data_offsets":[2,2]},"b":{"dtype":"U8","shape":[1],"data_offsets":[2,3]}}`, []byte{1, 2, 3}, 3},
		{"zero-size at end", `{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"z":{"dtype":"I64","shape":[0],"data_offsets":[2,2]}}`, []byte{1, 2}, 2},
		{"scalar", `{"s":{"dtype":"I64","shape":[],"data_offsets":[0,8]}}`, []byte{232, 3, 0, 0, 0, 0, 0, 0}, 1},
		{"extra fields", `{"s":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"note":{"x":[1]}}}`, []byte{9}, 1},
		{"unicode name", `{"ü\u00e9\ud83c\udfa8":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}`, []byte{9}, 1},
	}
	for _, tc := range cases {
		f, err := weights.ParseBytes(tc.name, assemble([]byte(tc.hdr), tc.body))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if len(f.Names()) != tc.tensors {
			t.Errorf("%s: %d tensors, want %d", tc.name, len(f.Names()), tc.tensors)
		}
		for _, n := range f.Names() {
			tn, _ := f.Tensor(n)
			if len(tn.Bytes()) != tn.Numel()*tn.DType.Size() {
				t.Errorf("%s: tensor %q has %d bytes", tc.name, n, len(tn.Bytes()))
			}
		}
	}
	f, _ := weights.ParseBytes("scalar", assemble([]byte(cases[7].hdr), cases[7].body))
	if tn, _ := f.Tensor("s"); tn == nil || tn.Numel() != 1 {
		t.Fatal("scalar missing")
	} else if v, err := tn.Int64(); err != nil || v[0] != 1000 {
		t.Errorf("scalar = %v, %v", v, err)
	}
	f, _ = weights.ParseBytes("zero", assemble([]byte(cases[5].hdr), cases[5].body))
	if tn, _ := f.Tensor("z"); tn == nil || tn.Numel() != 0 || len(tn.Shape) != 2 {
		t.Errorf("zero-size tensor: %+v", tn)
	} else if v, err := tn.Float32(); err != nil || len(v) != 0 {
		t.Errorf("zero-size Float32: %v, %v", v, err)
	}
}
