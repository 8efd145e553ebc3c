package gguf_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
)

// image builds GGUF files for tests: metadata and tensors laid out as gguf-py writes them.
type image struct {
	version uint32
	align   int
	kv      []byte
	nkv     int
	tensors []testTensor
}

type testTensor struct {
	name string
	ne   []uint64
	typ  gguf.Type
	data []byte
}

func u32b(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
func u64b(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
func strb(s string) []byte { return append(u64b(uint64(len(s))), s...) }

func (im *image) add(key string, t gguf.ValueType, val []byte) *image {
	im.kv = append(append(append(im.kv, strb(key)...), u32b(uint32(t))...), val...)
	im.nkv++
	return im
}

func (im *image) bytes() []byte {
	align := im.align
	if align == 0 {
		align = gguf.DefaultAlignment
	}
	v := im.version
	if v == 0 {
		v = 3
	}
	out := append([]byte("GGUF"), u32b(v)...)
	out = append(out, u64b(uint64(len(im.tensors)))...)
	out = append(out, u64b(uint64(im.nkv))...)
	out = append(out, im.kv...)
	var off uint64
	for _, t := range im.tensors {
		out = append(out, strb(t.name)...)
		out = append(out, u32b(uint32(len(t.ne)))...)
		for _, d := range t.ne {
			out = append(out, u64b(d)...)
		}
		out = append(out, u32b(uint32(t.typ))...)
		out = append(out, u64b(off)...)
		off += uint64((len(t.data) + align - 1) / align * align)
	}
	for len(out)%align != 0 {
		out = append(out, 0)
	}
	for _, t := range im.tensors {
		out = append(out, t.data...)
		for len(out)%align != 0 {
			out = append(out, 0)
		}
	}
	return out
}

func f32bytes(v ...float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// sample is a small valid v3 file: every scalar value type, a string array, an F32 matrix
// and a Q8_0 row.
func sample() *image {
	im := &image{}
	im.add("general.architecture", gguf.TypeString, strb("flux"))
	im.add("u8", gguf.TypeUint8, []byte{200})
	im.add("i8", gguf.TypeInt8, []byte{0xff})
	im.add("u16", gguf.TypeUint16, []byte{1, 2})
	im.add("i16", gguf.TypeInt16, []byte{0xfe, 0xff})
	im.add("u32", gguf.TypeUint32, u32b(28))
	im.add("i32", gguf.TypeInt32, u32b(0xfffffffd))
	im.add("f32", gguf.TypeFloat32, u32b(math.Float32bits(1e6)))
	im.add("bool", gguf.TypeBool, []byte{1})
	im.add("u64", gguf.TypeUint64, u64b(1<<40))
	im.add("i64", gguf.TypeInt64, u64b(math.MaxUint64))
	im.add("f64", gguf.TypeFloat64, u64b(math.Float64bits(0.5)))
	im.add("tags", gguf.TypeArray, append(append(u32b(uint32(gguf.TypeString)), u64b(2)...), append(strb("a"), strb("bc")...)...))
	im.add("ints", gguf.TypeArray, append(append(u32b(uint32(gguf.TypeInt16)), u64b(2)...), 0xff, 0xff, 7, 0))
	q8 := make([]byte, 34)
	q8[1] = 0x3c // d = 1.0
	for j := range 32 {
		q8[2+j] = byte(int8(j - 16))
	}
	im.tensors = []testTensor{
		{"m", []uint64{3, 2}, gguf.F32, f32bytes(1, 2, 3, 4, 5, 6)},
		{"q", []uint64{32}, gguf.Q8_0, q8},
	}
	return im
}

func TestParseSample(t *testing.T) {
	for _, version := range []uint32{2, 3} {
		im := sample()
		im.version = version
		f, err := gguf.ParseBytes("sample", im.bytes())
		if err != nil {
			t.Fatalf("v%d: %v", version, err)
		}
		if f.Version != version || f.Architecture() != "flux" || f.Alignment != 32 || f.DataStart%32 != 0 {
			t.Errorf("v%d: version %d arch %q alignment %d data %d", version, f.Version, f.Architecture(), f.Alignment, f.DataStart)
		}
		checkValues(t, f)
		m, err := f.Tensor("m")
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(m.Shape, []int{2, 3}) || m.RowLen() != 3 || m.Numel() != 6 {
			t.Errorf("m: shape %v rowlen %d", m.Shape, m.RowLen())
		}
		if v, err := m.Float32(); err != nil || !slices.Equal(v, []float32{1, 2, 3, 4, 5, 6}) {
			t.Errorf("m = %v, %v", v, err)
		}
		q, _ := f.Tensor("q")
		if v, err := q.Float32(); err != nil || v[0] != -16 || v[31] != 15 {
			t.Errorf("q = %v, %v", v, err)
		}
		if _, err := f.Tensor("nope"); !errors.Is(err, gguf.ErrNotFound) {
			t.Errorf("missing tensor: %v", err)
		}
	}
}

func checkValues(t *testing.T, f *gguf.File) {
	t.Helper()
	want := map[string]string{"u8": "200", "i8": "-1", "u16": "513", "i16": "-2", "u32": "28",
		"i32": "-3", "f32": "1e+06", "bool": "true", "u64": "1099511627776", "i64": "-1", "f64": "0.5",
		"tags": "[2 x STRING]", "ints": "[2 x INT16]", "general.architecture": `"flux"`}
	for k, w := range want {
		v, ok := f.Value(k)
		if !ok || v.String() != w {
			t.Errorf("%s = %v (%v), want %s", k, v, ok, w)
		}
	}
	if n, ok := f.Uint("u32"); !ok || n != 28 {
		t.Errorf("Uint(u32) = %d, %v", n, ok)
	}
	if _, ok := f.Uint("i8"); ok {
		t.Error("Uint of -1 succeeded")
	}
	if x, ok := f.Float("f32"); !ok || x != 1e6 {
		t.Errorf("Float(f32) = %v, %v", x, ok)
	}
	v, _ := f.Value("tags")
	if s, ok := v.Strings(); !ok || !slices.Equal(s, []string{"a", "bc"}) {
		t.Errorf("tags = %v", s)
	}
	v, _ = f.Value("ints")
	if s, ok := v.Ints(); !ok || !slices.Equal(s, []int64{-1, 7}) {
		t.Errorf("ints = %v", s)
	}
	if keys := f.Keys(); len(keys) != 14 || keys[0] != "general.architecture" {
		t.Errorf("keys %v", keys)
	}
}

// TestHostile: corrupt and hostile headers give an error matching ErrFormat (no panic, no
// huge allocation).
func TestHostile(t *testing.T) {
	good := sample().bytes()
	patch := func(off int, b []byte) []byte { c := slices.Clone(good); copy(c[off:], b); return c }
	withKV := func(key string, ty gguf.ValueType, val []byte) []byte {
		im := sample()
		return im.add(key, ty, val).bytes()
	}
	withTensor := func(tt testTensor) []byte {
		im := sample()
		im.tensors = append(im.tensors, tt)
		return im.bytes()
	}
	misaligned := func() []byte {
		im := &image{}
		im.tensors = []testTensor{{"a", []uint64{1}, gguf.F32, f32bytes(1)}}
		b := im.bytes()
		// the offset field is the 8 bytes after name, n_dims, ne and type
		off := 4 + 4 + 8 + 8 + 8 + 1 + 4 + 8 + 4
		binary.LittleEndian.PutUint64(b[off:], 4)
		return b
	}
	cases := map[string][]byte{
		"empty":              {},
		"magic":              []byte("GGUX\x03\x00\x00\x00"),
		"version 1":          patch(4, u32b(1)),
		"big endian":         patch(4, []byte{0, 0, 0, 3}),
		"version 9":          patch(4, u32b(9)),
		"tensor count huge":  patch(8, u64b(1<<62)),
		"tensor count fits":  patch(8, u64b(1<<19)),
		"kv count huge":      patch(16, u64b(math.MaxUint64)),
		"truncated header":   good[:100],
		"truncated data":     good[:len(good)-40],
		"string too long":    patch(24, u64b(1<<60)),
		"unknown value type": withKV("x", 77, nil),
		"nested array":       withKV("x", gguf.TypeArray, append(u32b(uint32(gguf.TypeArray)), u64b(1)...)),
		"array too long":     withKV("x", gguf.TypeArray, append(u32b(uint32(gguf.TypeUint64)), u64b(1<<40)...)),
		"string array long":  withKV("x", gguf.TypeArray, append(u32b(uint32(gguf.TypeString)), u64b(1<<58)...)),
		"duplicate key":      withKV("u8", gguf.TypeUint8, []byte{1}),
		"alignment zero":     withKV("general.alignment", gguf.TypeUint32, u32b(0)),
		"alignment not pow2": withKV("general.alignment", gguf.TypeUint32, u32b(48)),
		"alignment u64":      withKV("general.alignment", gguf.TypeUint64, u64b(32)),
		"unknown type":       withTensor(testTensor{"x", []uint64{1}, gguf.Type(5), []byte{0}}),
		"five dims":          withTensor(testTensor{"x", []uint64{1, 1, 1, 1, 1}, gguf.F32, f32bytes(1)}),
		"partial block":      withTensor(testTensor{"x", []uint64{16}, gguf.Q8_0, make([]byte, 34)}),
		"dims overflow":      withTensor(testTensor{"x", []uint64{1 << 32, 1 << 32}, gguf.F32, nil}),
		"size overflow":      withTensor(testTensor{"x", []uint64{1 << 40, 1 << 22}, gguf.F32, nil}),
		"past the end":       withTensor(testTensor{"x", []uint64{1 << 20}, gguf.F32, nil}),
		"duplicate tensor":   withTensor(testTensor{"m", []uint64{1}, gguf.F32, f32bytes(1)}),
		"misaligned":         misaligned(),
	}
	for name, data := range cases {
		f, err := gguf.ParseBytes(name, data)
		if err == nil {
			t.Errorf("%s: parsed (%d tensors)", name, len(f.Names()))
			continue
		}
		if !errors.Is(err, gguf.ErrFormat) {
			t.Errorf("%s: error %v does not match ErrFormat", name, err)
		}
		if !strings.HasPrefix(err.Error(), name+": ") {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
}

// TestOverlap: two tensors sharing bytes are refused.
func TestOverlap(t *testing.T) {
	im := &image{tensors: []testTensor{{"a", []uint64{8}, gguf.F32, make([]byte, 32)}, {"b", []uint64{8}, gguf.F32, make([]byte, 32)}}}
	b := im.bytes()
	// b's offset (32) sits at the end of its info; set it to 0.
	i := strings.LastIndex(string(b[:len(b)-64]), "\x01\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x20")
	if i < 0 {
		t.Fatal("offset field not found")
	}
	binary.LittleEndian.PutUint64(b[i+4+8+4:], 0)
	if _, err := gguf.ParseBytes("overlap", b); !errors.Is(err, gguf.ErrFormat) || !strings.Contains(err.Error(), "overlaps") {
		t.Fatalf("overlap: %v", err)
	}
}

// TestOpenRefusesSpecialFiles: a folder is refused by the guarded opener.
func TestOpenRefusesSpecialFiles(t *testing.T) {
	if _, err := gguf.Open(t.TempDir()); err == nil {
		t.Fatal("opened a folder")
	}
	p := filepath.Join(t.TempDir(), "x.gguf")
	if err := os.WriteFile(p, sample().bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	tn, _ := f.Tensor("m")
	if err := f.Release(tn); err != nil {
		t.Error(err)
	}
	if err := f.Close(); err != nil || f.Close() != nil {
		t.Error("close", err)
	}
	if _, err := f.Tensor("m"); err == nil {
		t.Error("tensor after close")
	}
}

// infoTensor is one tensor entry of golden gguf/gguf_info.json.
type infoTensor struct {
	Type       string   `json:"type"`
	TypeID     uint32   `json:"ggml_type_id"`
	NBytes     int      `json:"n_bytes"`
	Ne         []uint64 `json:"ne"`
	Shape      []int    `json:"shape"`
	FileOffset uint64   `json:"file_offset"`
}

type infoKV struct {
	Type  string `json:"type"`
	Value any    `json:"value"`
}

// TestGoldenModelFiles reads the three model GGUFs (city96 transformer, sd.cpp transformer
// without metadata, llama.cpp Qwen3) and checks every tensor's type, ne, shape, size and
// absolute data offset, and every metadata value, against golden gguf/gguf_info.json.
func TestGoldenModelFiles(t *testing.T) {
	raw, err := os.ReadFile(golden.Path(t, "gguf", "gguf_info.json"))
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		Files map[string]string `json:"files"`
	}
	if err := json.Unmarshal(raw, &info); err != nil {
		t.Fatal(err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"t1", "t2", "te"} {
		var part [2]json.RawMessage
		var tensors map[string]infoTensor
		var kv map[string]infoKV
		if err := json.Unmarshal(all[key], &part); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(part[0], &tensors); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(part[1], &kv); err != nil {
			t.Fatal(err)
		}
		f, err := gguf.Open(golden.Path(t, info.Files[key]))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if len(f.Names()) != len(tensors) || len(f.Keys()) != len(kv) {
			t.Errorf("%s: %d tensors %d keys, want %d, %d", key, len(f.Names()), len(f.Keys()), len(tensors), len(kv))
		}
		for name, w := range tensors {
			tn, err := f.Tensor(name)
			if err != nil {
				t.Error(err)
				continue
			}
			if tn.Type.String() != w.Type || uint32(tn.Type) != w.TypeID || tn.Size != w.NBytes ||
				!slices.Equal(tn.Dims, w.Ne) || !slices.Equal(tn.Shape, w.Shape) || f.DataStart+tn.Offset != w.FileOffset {
				t.Errorf("%s %s: %s ne %v shape %v %d bytes at %d, want %+v", key, name, tn.Type, tn.Dims, tn.Shape, tn.Size, f.DataStart+tn.Offset, w)
			}
			if _, err := tn.Float32(); err != nil {
				t.Error(err)
			}
		}
		for k, w := range kv {
			v, ok := f.Value(k)
			if !ok {
				t.Errorf("%s: key %s missing", key, k)
				continue
			}
			checkKV(t, key+" "+k, v, w)
		}
	}
}

func checkKV(t *testing.T, what string, v gguf.Value, w infoKV) {
	t.Helper()
	switch w.Type {
	case "STRING":
		if s, ok := v.Str(); !ok || s != w.Value {
			t.Errorf("%s = %v, want %v", what, v, w.Value)
		}
	case "UINT32":
		if n, ok := v.Uint(); !ok || v.Type != gguf.TypeUint32 || float64(n) != w.Value {
			t.Errorf("%s = %v, want %v", what, v, w.Value)
		}
	case "FLOAT32":
		if x, ok := v.Float(); !ok || v.Type != gguf.TypeFloat32 || x != w.Value {
			t.Errorf("%s = %v, want %v", what, v, w.Value)
		}
	case "ARRAY[STRING]":
		s, ok := v.Strings()
		var want []string
		for _, e := range w.Value.([]any) {
			want = append(want, e.(string))
		}
		if !ok || !slices.Equal(s, want) {
			t.Errorf("%s = %v, want %v", what, s, want)
		}
	default:
		t.Errorf("%s: golden type %s not checked", what, w.Type)
	}
}
