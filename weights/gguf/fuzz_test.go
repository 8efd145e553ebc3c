package gguf_test

import (
	"os"
	"testing"

	"kleinbild/weights/gguf"
	"kleinbild/weights/golden"
)

// FuzzParse feeds arbitrary bytes to the GGUF parser. Whatever parses must be consistent:
// every tensor's data lies in the file with the size its type and dimensions give, and
// dequantizes (or reports its type unsupported) without panicking; every array decodes.
// Seeds: the sample file in both versions, the small golden dequant files whole, and the
// headers of the golden model files.
func FuzzParse(f *testing.F) {
	for _, v := range []uint32{2, 3} {
		im := sample()
		im.version = v
		f.Add(im.bytes())
	}
	for _, ty := range []string{"Q8_0", "Q4_K", "Q6_K", "BF16"} {
		data, err := os.ReadFile(golden.Path(f, "gguf", "dequant", ty+".gguf"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, p := range []string{"comfyui/diffusion_models/flux-2-klein-tiny-Q8_0-mix.gguf", "sdcpp/flux-2-klein-tiny-q8_0-q4_k.gguf"} {
		data, err := os.ReadFile(golden.Path(f, "gguf", "model", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data[:4096])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := gguf.ParseBytes("fuzz", data)
		if err != nil {
			return
		}
		for _, tn := range file.Tensors() {
			want, err := tn.Type.RowBytes(tn.RowLen())
			if err != nil {
				t.Fatalf("%s: parsed with bad row: %v", tn.Name, err)
			}
			if tn.RowLen() > 0 {
				want *= tn.Numel() / tn.RowLen()
			}
			if len(tn.Bytes()) != tn.Size || tn.Size != want {
				t.Fatalf("%s: %d bytes, size %d, want %d", tn.Name, len(tn.Bytes()), tn.Size, want)
			}
			if tn.Numel() <= 1<<20 {
				if _, err := tn.Float32(); err != nil && tn.Type.Dequantizable() {
					t.Fatalf("%s: %v", tn.Name, err)
				}
			}
		}
		for _, k := range file.Keys() {
			v, _ := file.Value(k)
			_ = v.String()
			if v.Type == gguf.TypeArray && v.Len <= 1<<16 {
				if _, ok := v.Strings(); !ok && v.Elem == gguf.TypeString {
					t.Fatalf("%s: string array does not decode", k)
				}
				v.Ints()
			}
		}
	})
}
