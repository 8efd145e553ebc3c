//go:build cgo

package webgpu

import (
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/gputest"
)

var logErrors = flag.Bool("errors", false, "log rel-L2 and max abs error of every comparison")

// open returns a backend on the best adapter, skipping the test when there is none unless
// KLEINBILD_REQUIRE_WEBGPU=1 (CI, with Mesa's software Vulkan installed).
func open(t *testing.T) *Backend {
	t.Helper()
	b, err := New(Options{Adapter: -1})
	if err != nil {
		if os.Getenv("KLEINBILD_REQUIRE_WEBGPU") == "1" {
			t.Fatalf("KLEINBILD_REQUIRE_WEBGPU=1 but: %v", err)
		}
		t.Skipf("no WebGPU adapter: %v", err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return b
}

func TestConformance(t *testing.T) {
	b := open(t)
	// The full suite takes about 35 s on llvmpipe (2 cores); -short for less.
	gputest.Run(t, b, gputest.Options{Short: testing.Short(), LogErrors: *logErrors, Quant: QuantTypes()})
}

func TestAdapters(t *testing.T) {
	ads, err := Adapters()
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range ads {
		t.Logf("adapter %d: %+v", i, a)
		if a.Name == "" || a.Name == "0x0" || a.API == "" || a.Kind == "" {
			t.Errorf("adapter %d: incomplete description %+v", i, a)
		}
		if a.MaxBufferBytes <= 0 || a.MaxBindingBytes <= 0 {
			t.Errorf("adapter %d: no buffer limits %+v", i, a)
		}
	}
	if len(ads) == 0 && os.Getenv("KLEINBILD_REQUIRE_WEBGPU") == "1" {
		t.Fatal("KLEINBILD_REQUIRE_WEBGPU=1 but no adapter")
	}
	if _, err := New(Options{Adapter: len(ads)}); err == nil {
		t.Errorf("New(Adapter: %d) of %d adapters succeeded", len(ads), len(ads))
	}
	details, err := AdapterDetails()
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range details { // what pairs an adapter with the card's Vulkan device
		if a.Index() != i || a.Key() == "" || a.VendorID == 0 {
			t.Errorf("adapter %d: index %d, key %q, vendor %#x", i, a.Index(), a.Key(), a.VendorID)
		}
	}
	if len(details) > 0 {
		b, err := New(Options{Adapter: len(details) - 1})
		if err != nil {
			t.Fatal(err)
		}
		if a := b.Adapter(); a.Index() != len(details)-1 || a.Key() != details[len(details)-1].Key() {
			t.Errorf("the backend's adapter %d %q, opened as %d %q", a.Index(), a.Key(), len(details)-1, details[len(details)-1].Key())
		}
		b.Close()
	}
}

func TestPickAdapter(t *testing.T) {
	sw := gpu.DeviceInfo{Kind: gpu.KindSoftware}
	for _, c := range []struct {
		kinds []gpu.DeviceKind
		want  int
	}{
		{nil, -1},
		{[]gpu.DeviceKind{gpu.KindSoftware}, 0},
		{[]gpu.DeviceKind{gpu.KindSoftware, gpu.KindIntegrated}, 1},
		{[]gpu.DeviceKind{gpu.KindIntegrated, gpu.KindDiscrete, gpu.KindSoftware}, 1},
		{[]gpu.DeviceKind{gpu.KindSoftware, gpu.KindOther}, 1},
	} {
		var infos []gpu.DeviceInfo
		for _, k := range c.kinds {
			i := sw
			i.Kind = k
			infos = append(infos, i)
		}
		if got := pickAdapter(infos); got != c.want {
			t.Errorf("pickAdapter(%v) = %d, want %d", c.kinds, got, c.want)
		}
	}
}

// TestErrors checks that bad calls and impossible allocations become errors, never panics.
func TestErrors(t *testing.T) {
	b := open(t)
	info := b.Info()
	// Beyond the largest buffer: Alloc fails with a message naming the size and the limit.
	huge := int(info.MaxBufferBytes/4) + 1024
	if _, err := b.Alloc(gpu.F32, huge); err == nil || !strings.Contains(err.Error(), "maximum buffer size") {
		t.Errorf("Alloc of %d floats: err = %v", huge, err)
	}
	x, err := gpu.FromHost(b, []float32{1, 2, 3}, 3)
	if err != nil {
		t.Fatal(err)
	}
	y, _ := b.Alloc(gpu.F32, 4)
	b.Add(y, x, x) // length mismatch
	if err := b.Flush(); err == nil {
		t.Error("Add of mismatched lengths: no error")
	}
	if err := b.Sync(); err != nil {
		t.Errorf("error not cleared: %v", err)
	}
	// A freed tensor is an error, not a crash.
	b.Free(y)
	b.SiLU(y, y)
	if err := b.Sync(); err == nil || !strings.Contains(err.Error(), "freed") {
		t.Errorf("op on freed tensor: err = %v", err)
	}
	out := make([]float32, 3)
	if err := b.Read(out, x); err != nil || out[2] != 3 {
		t.Errorf("Read after errors: %v %v", out, err)
	}
	b.Free(x)
	if m := b.Memory(); m.Resident != 0 {
		t.Errorf("resident after freeing everything: %d", m.Resident)
	}
}

// TestLargeTensors checks the paths for tensors beyond one binding: a bf16 weight stored as
// several buffers (Linear per chunk, checked at the rows around the chunk boundary) and an
// activation bound through windows (SiLU in several dispatches).
func TestLargeTensors(t *testing.T) {
	if testing.Short() {
		t.Skip("large buffers")
	}
	b := open(t)
	// A binding limit of 1 MiB (below the device's own) exercises the same paths cheaply.
	const limit = 1 << 20
	b.lim.MaxStorageBufferBindingSize = limit
	for _, in := range []int{1000, 999} { // 999: bf16 rows that start mid-word
		out := limit/(2*in) + 40 // just over one binding of bf16 rows
		bits := make([]uint16, out*in)
		for o := range out {
			for k := range in {
				// small exact values: w[o, k] = ((o + k) % 7 − 3)/8
				f := float32((o+k)%7-3) / 8
				bits[o*in+k] = uint16(math.Float32bits(f) >> 16)
			}
		}
		w, err := b.WeightBF16(bits, out, in)
		if err != nil {
			t.Fatal(err)
		}
		if nb := len(w.Buffer().(*buffer).bufs); nb < 2 {
			t.Fatalf("weight of %d bytes in %d buffer(s) at a binding limit of %d", out*in*2, nb, limit)
		}
		bias := make([]float32, out)
		for o := range bias {
			bias[o] = float32(o % 3)
		}
		bt, _ := gpu.FromHost(b, bias)
		x := make([]float32, 2*in)
		for i := range x {
			x[i] = float32(i%5) - 2
		}
		xt, _ := gpu.FromHost(b, x, 2, in)
		y, _ := b.Alloc(gpu.F32, 2, out)
		b.Linear(y, xt, w, bt, 2)
		got, err := gpu.ToHost(b, y)
		if err != nil {
			t.Fatal(err)
		}
		for o := range out {
			for r := range 2 {
				want := float64(bias[o])
				for k := range in {
					want += float64(x[r*in+k]) * float64((o+k)%7-3) / 8
				}
				if g := got[r*out+o]; float64(g) != want {
					t.Fatalf("in=%d: Linear over chunked weight: y[%d, %d] = %v, want %v", in, r, o, g, want)
				}
			}
		}
		for _, x := range []gpu.Tensor{w, bt, xt, y} {
			b.Free(x)
		}
	}

	n := int(limit/4) + 1000
	big, err := b.Alloc(gpu.F32, n)
	if err != nil {
		t.Fatal(err)
	}
	host := make([]float32, n)
	for i := range host {
		host[i] = float32(i%11) - 5
	}
	b.Upload(big, host)
	b.SiLU(big, big)
	tail := big.From(n - 3000)
	res, err := gpu.ToHost(b, tail)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range res {
		v := float64(host[n-3000+i])
		if want := v / (1 + math.Exp(-v)); math.Abs(float64(g)-want) > 1e-6 {
			t.Fatalf("SiLU over windows: element %d = %v, want %v", n-3000+i, g, want)
		}
	}
	b.Free(big)
}

// TestAttentionLargeHeadDim covers the untiled attention kernel (head dims above 128: the
// VAE's mid-block attention uses head dim = channels = 512), which the conformance suite's
// cases (head dim ≤ 128) do not reach, against a float64 reference.
func TestAttentionLargeHeadDim(t *testing.T) {
	b := open(t)
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []gpu.AttnParams{
		{SeqQ: 37, SeqK: 37, Heads: 1, HeadDim: 512},
		{SeqQ: 20, SeqK: 45, Heads: 2, KVHeads: 1, HeadDim: 200, KeyValid: 30},
		{SeqQ: 33, SeqK: 33, Heads: 2, HeadDim: 136, Causal: true},
	} {
		p := c.WithDefaults()
		qh := randF32(r, p.SeqQ*p.QStride, 1)
		kh := randF32(r, p.SeqK*p.KStride, 1)
		vh := randF32(r, p.SeqK*p.VStride, 1)
		q, _ := gpu.FromHost(b, qh)
		k, _ := gpu.FromHost(b, kh)
		v, _ := gpu.FromHost(b, vh)
		o, _ := b.Alloc(gpu.F32, p.SeqQ*p.OutStride)
		b.Attention(o, q, k, v, c)
		got, err := gpu.ToHost(b, o)
		if err != nil {
			t.Fatal(err)
		}
		var num, den float64
		d := p.HeadDim
		for i := range p.SeqQ {
			for h := range p.Heads {
				kvh := h / (p.Heads / p.KVHeads)
				nk := p.VisibleKeys()
				if p.Causal {
					nk = min(nk, i+1)
				}
				s := make([]float64, nk)
				m := math.Inf(-1)
				for j := range s {
					for e := range d {
						s[j] += float64(qh[i*p.QStride+h*d+e]) * float64(kh[j*p.KStride+kvh*d+e])
					}
					s[j] *= float64(p.Scale)
					m = max(m, s[j])
				}
				var l float64
				for j := range s {
					s[j] = math.Exp(s[j] - m)
					l += s[j]
				}
				for e := range d {
					var a float64
					for j := range s {
						a += s[j] * float64(vh[j*p.VStride+kvh*d+e])
					}
					a /= l
					g := float64(got[i*p.OutStride+h*d+e])
					num += (g - a) * (g - a)
					den += a * a
				}
			}
		}
		rel := math.Sqrt(num / den)
		tol := 2e-7 * math.Sqrt(float64(max(p.SeqK, d)))
		t.Logf("%+v: rel-L2 %.3g (tol %.3g)", c, rel, tol)
		if !(rel <= tol) {
			t.Errorf("%+v: rel-L2 %.3g > %.3g", c, rel, tol)
		}
		for _, x := range []gpu.Tensor{q, k, v, o} {
			b.Free(x)
		}
	}
}

// Issue 35: the backend's errors are *gpu.DeviceError (the app falls back to the CPU on
// them), from an op (Flush), Read and Alloc alike.
func TestErrorsAreDeviceErrors(t *testing.T) {
	b := open(t)
	x, err := b.Alloc(gpu.F32, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free(x)
	b.SiLU(x, gpu.Tensor{}) // a missing input fails the op; Flush reports it
	for name, err := range map[string]error{
		"Flush": b.Flush(),
		"Read":  b.Read(make([]float32, 3), x),
		"Alloc": func() error { _, err := b.Alloc(gpu.F32, -1); return err }(),
	} {
		var de *gpu.DeviceError
		if !errors.As(err, &de) || de.Backend != "webgpu" {
			t.Errorf("%s: %v (%T) is not a webgpu *gpu.DeviceError", name, err, err)
		}
	}
}
