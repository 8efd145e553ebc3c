package weights_test

import (
	"encoding/binary"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"

	"kleinbild/weights"
	"kleinbild/weights/golden"
)

// shrinkImage keeps up to maxTensors of the tensors of a valid image that are at most
// maxBytes long, with their real header entries (names, dtypes, shapes, metadata) and data,
// repacked into a small file.
func shrinkImage(data []byte, maxBytes float64, maxTensors int) []byte {
	img := splitImage(data)
	names := slices.Sorted(maps.Keys(img.header))
	out := stImage{header: map[string]map[string]any{}, meta: img.meta}
	for _, n := range names {
		e := img.header[n]
		lo, hi := offsets(e)
		if hi-lo > maxBytes || len(out.header) == maxTensors {
			continue
		}
		e["data_offsets"] = []any{len(out.body), len(out.body) + int(hi-lo)}
		out.body = append(out.body, img.body[int(lo):int(hi)]...)
		out.header[n] = e
	}
	return out.bytes(nil)
}

// fuzzSeeds are real golden files (small ones whole, the others cut down to a few small
// tensors with their real names, shapes and metadata, plus bare headers where short), a file
// with every dtype written by WriteFile, and corrupted variants of them. Seeds are kept small:
// the fuzzer minimises every new interesting input, which takes long for large ones.
func fuzzSeeds(f *testing.F) [][]byte {
	const maxSeed = 4 << 10
	var seeds [][]byte
	for _, p := range goldenFiles(f) {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		if hlen := binary.LittleEndian.Uint64(data); hlen <= maxSeed {
			seeds = append(seeds, data[:8+hlen]) // header only: fails, but a real header
		}
		if len(data) <= maxSeed {
			seeds = append(seeds, data)
		} else if s := shrinkImage(data, 256, 8); len(s) <= maxSeed {
			seeds = append(seeds, s)
		}
	}
	path := filepath.Join(f.TempDir(), "all.safetensors")
	err := weights.WriteFile(path, []weights.OutTensor{
		{Name: "f32", Shape: []int{2, 2}, F32: []float32{1, 2, 3, 4}},
		{Name: "bf16", Shape: []int{3}, BF16: []uint16{0x3f80, 0, 0xc000}},
		{Name: "f16", Shape: []int{1}, F16: []uint16{0x3c00}},
		{Name: "i64", Shape: []int{}, I64: []int64{1000}},
		{Name: "u8", Shape: []int{0, 3}, U8: []uint8{}},
	}, map[string]string{"format": "pt"})
	if err != nil {
		f.Fatal(err)
	}
	all, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	seeds = append(seeds, all)
	tiny, err := os.ReadFile(golden.Path(f, "image_processor", "large_1100x1000.safetensors"))
	if err != nil {
		f.Fatal(err)
	}
	for _, base := range [][]byte{all, tiny} {
		for _, c := range corruptions(base) {
			seeds = append(seeds, c.data)
		}
	}
	return seeds
}

// FuzzParse feeds arbitrary bytes to ParseBytes: it must never panic, and whenever it
// succeeds every tensor must be a correctly sized view inside the data section, readable
// through the accessor of its dtype.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := weights.ParseBytes("fuzz.safetensors", data)
		if err != nil {
			return
		}
		hlen := binary.LittleEndian.Uint64(data)
		dataStart := uintptr(unsafe.Pointer(unsafe.SliceData(data))) + uintptr(8+hlen)
		dataEnd := uintptr(unsafe.Pointer(unsafe.SliceData(data))) + uintptr(len(data))
		var hdr map[string]json.RawMessage
		if err := json.Unmarshal(data[8:8+hlen], &hdr); err != nil {
			t.Fatalf("accepted a header encoding/json rejects: %v", err)
		}
		names := file.Names()
		if !slices.IsSorted(names) {
			t.Fatalf("names not sorted: %q", names)
		}
		covered := 0
		for _, n := range names {
			if _, ok := hdr[n]; !ok || n == "__metadata__" {
				t.Fatalf("tensor %q is not a header key", n)
			}
			tn, err := file.Tensor(n)
			if err != nil {
				t.Fatal(err)
			}
			b := tn.Bytes()
			numel := 1
			for _, d := range tn.Shape {
				if d < 0 {
					t.Fatalf("%q: negative dimension in %v", n, tn.Shape)
				}
				numel *= d
			}
			if numel != tn.Numel() || len(b) != numel*tn.DType.Size() || cap(b) != len(b) {
				t.Fatalf("%q: %d bytes (cap %d) for shape %v of %s", n, len(b), cap(b), tn.Shape, tn.DType)
			}
			covered += len(b)
			if len(b) > 0 {
				p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
				if p < dataStart || p+uintptr(len(b)) > dataEnd {
					t.Fatalf("%q: bytes [%#x, %#x) outside the data section [%#x, %#x)", n, p, p+uintptr(len(b)), dataStart, dataEnd)
				}
			}
			switch tn.DType {
			case weights.F32, weights.BF16, weights.F16:
				if v, err := tn.Float32(); err != nil || len(v) != numel {
					t.Fatalf("%q: Float32 gave %d values, %v", n, len(v), err)
				}
			case weights.I64:
				if v, err := tn.Int64(); err != nil || len(v) != numel {
					t.Fatalf("%q: Int64 gave %d values, %v", n, len(v), err)
				}
			case weights.U8:
				if v, err := tn.Uint8(); err != nil || len(v) != numel {
					t.Fatalf("%q: Uint8 gave %d values, %v", n, len(v), err)
				}
			default:
				t.Fatalf("%q: unknown dtype %v", n, tn.DType)
			}
		}
		if want := len(data) - 8 - int(hlen); covered != want {
			t.Fatalf("tensors cover %d bytes of a %d-byte data section", covered, want)
		}
	})
}
