//go:build cgo

package webgpu

import (
	"math"
	"testing"

	"kleinbild/gpu"
)

// TestStagedWeights: weights larger than one staging piece, with an odd bf16 count, arrive
// exactly through the mapped staging buffers, and Uploads counts their bytes.
func TestStagedWeights(t *testing.T) {
	b := open(t)
	n := stagingPiece/2 + 3 // bf16 values: two pieces, the last one padded
	bits := make([]uint16, n)
	for i := range bits {
		bits[i] = uint16(math.Float32bits(float32(i%4099-2000)) >> 16)
	}
	wb, err := b.WeightBF16(bits, n)
	if err != nil {
		t.Fatal(err)
	}
	f := make([]float32, 1001)
	for i := range f {
		f[i] = float32(i) * 0.25
	}
	wf, err := b.WeightF32(f, 7, 143)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]float32, n)
	if err := b.Read(got, wb); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		if want := math.Float32frombits(uint32(bits[i]) << 16); v != want {
			t.Fatalf("bf16 weight [%d] = %v, want %v", i, v, want)
		}
	}
	gf := make([]float32, len(f))
	if err := b.Read(gf, wf); err != nil {
		t.Fatal(err)
	}
	for i := range f {
		if gf[i] != f[i] {
			t.Fatalf("f32 weight [%d] = %v, want %v", i, gf[i], f[i])
		}
	}
	if bytes, d := b.Uploads(); bytes != int64(2*n+4*len(f)) || d <= 0 {
		t.Errorf("Uploads = %d bytes in %v, want %d", bytes, d, 2*n+4*len(f))
	}
}

// TestParallelCopy: every byte lands, whatever the split.
func TestParallelCopy(t *testing.T) {
	for _, n := range []int{0, 5, copyPart - 1, 3*copyPart + 7, 17 * copyPart} {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(i*7 + i>>9)
		}
		dst := make([]byte, n)
		parallelCopy(dst, src)
		for i := range src {
			if dst[i] != src[i] {
				t.Fatalf("n=%d: byte %d = %d, want %d", n, i, dst[i], src[i])
			}
		}
	}
	if !littleEndian {
		t.Log("big-endian host: weights are converted before upload")
	}
}

// TestStagingRing: more weights than the ring has slots arrive exactly through reused (and,
// for a larger piece, replaced) staging buffers; the ring holds at most ringSlots of them
// while loading and none after the next wait for the device.
func TestStagingRing(t *testing.T) {
	b := open(t)
	if !mapWriteAvailable() {
		t.Skip("buffers cannot be mapped again here: new staging buffers per piece")
	}
	sizes := []int{1 << 18, 3 << 18, 1<<18 + 1, 5 << 18, 7 << 20, 2<<18 + 3} // f32 counts; the fifth outgrows a slot
	var ws [][]float32
	var ts []gpu.Tensor
	for k, n := range sizes {
		f := make([]float32, n)
		for i := range f {
			f[i] = float32(i%1009) + float32(k)*0.5
		}
		w, err := b.WeightF32(f, n)
		if err != nil {
			t.Fatal(err)
		}
		ws, ts = append(ws, f), append(ts, w)
		if len(b.ring.slots) > ringSlots {
			t.Fatalf("%d staging slots, want at most %d", len(b.ring.slots), ringSlots)
		}
	}
	for k, w := range ts {
		got := make([]float32, sizes[k])
		if err := b.Read(got, w); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if got[i] != ws[k][i] {
				t.Fatalf("weight %d [%d] = %v, want %v", k, i, got[i], ws[k][i])
			}
		}
	}
	if len(b.ring.slots) != 0 {
		t.Errorf("%d staging slots held after Read", len(b.ring.slots))
	}
	if read, _ := b.UploadTimes(); read <= 0 {
		t.Errorf("no read time counted (%v)", read)
	}
}
