package sched

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// equalBits reports the first index where got and want differ bit for bit, or -1.
func equalBits(got, want []float32) int {
	if len(got) != len(want) {
		return 0
	}
	for i := range got {
		if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
			return i
		}
	}
	return -1
}

func TestFlowMatchesDiffusers(t *testing.T) {
	f := golden.Open(t, "scheduler/schedules.safetensors")
	raw, err := os.ReadFile(golden.Path(t, "scheduler", "schedules.json"))
	if err != nil {
		t.Fatal(err)
	}
	var side struct {
		Mu map[string]struct {
			Mu float64 `json:"mu"`
		} `json:"mu"`
	}
	if err := json.Unmarshal(raw, &side); err != nil {
		t.Fatalf("schedules.json: %v", err)
	}
	cases := 0
	for _, n := range []int{1, 2, 4, 8, 28, 50} {
		for _, seq := range []int{16, 256, 1024, 4096, 6000} {
			key := fmt.Sprintf("n%d_seq%d", n, seq)
			want, ok := side.Mu[key]
			if !ok {
				t.Fatalf("%s: no mu in schedules.json", key)
			}
			mu := EmpiricalMu(seq, n)
			if rel := math.Abs(mu-want.Mu) / math.Abs(want.Mu); !(rel <= 1e-12) {
				t.Errorf("%s: mu %.17g, want %.17g (rel %.3g)", key, mu, want.Mu, rel)
			}
			s, err := ByName("flow", n, seq)
			if err != nil {
				t.Fatal(err)
			}
			if s.Steps() != n {
				t.Fatalf("%s: %d steps", key, s.Steps())
			}
			sig, _ := golden.F32(t, f, key+"_sigmas")
			ts, _ := golden.F32(t, f, key+"_timesteps")
			tp, _ := golden.F32(t, f, key+"_timestep_passed")
			if i := equalBits(s.Sigmas, sig); i >= 0 {
				t.Errorf("%s: sigmas differ at %d: got %v want %v", key, i, s.Sigmas, sig)
			}
			if i := equalBits(s.Timesteps, ts); i >= 0 {
				t.Errorf("%s: timesteps differ at %d: got %v want %v", key, i, s.Timesteps, ts)
			}
			passed := make([]float32, n)
			for i := range passed {
				passed[i] = s.TimestepPassed(i)
			}
			if i := equalBits(passed, tp); i >= 0 {
				t.Errorf("%s: timestep passed differs at %d: got %v want %v", key, i, passed, tp)
			}
			cases++
		}
	}
	t.Logf("%d schedules bit-exact (sigmas, timesteps, timestep passed), mu within 1e-12", cases)
}

func TestEulerLoopMatchesDiffusers(t *testing.T) {
	f := golden.Open(t, "scheduler/step_n4_seq16.safetensors")
	s := Flow(4, 16)
	sig, _ := golden.F32(t, f, "sigmas")
	ts, _ := golden.F32(t, f, "timesteps")
	if equalBits(s.Sigmas, sig) >= 0 || equalBits(s.Timesteps, ts) >= 0 {
		t.Fatalf("schedule %v / %v, want %v / %v", s.Sigmas, s.Timesteps, sig, ts)
	}
	x0, _ := golden.F32(t, f, "sample_0")
	b := backends.Default()
	x := upload(t, b, x0)
	defer b.Free(x)
	for i := 0; i < 4; i++ {
		v, _ := golden.F32(t, f, fmt.Sprintf("model_output_%d", i))
		vt := upload(t, b, v)
		eulerStep(b, x, vt, s.Sigmas[i], s.Sigmas[i+1])
		got := download(t, b, x)
		b.Free(vt)
		want, _ := golden.F32(t, f, fmt.Sprintf("sample_%d", i+1))
		golden.Compare(t, fmt.Sprintf("sample_%d", i+1), got, want, 1e-6)
		diff := 0
		for j := range got {
			if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
				diff++
			}
		}
		t.Logf("sample_%d: %d of %d values not bit-exact", i+1, diff, len(got))
	}
}

func TestByName(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		first float32
	}{
		{"", 4, 1}, {"flow", 4, 1}, {"linear", 4, 1}, {"power", 4, 1}, {"power:1.5", 10, 1},
	} {
		s, err := ByName(tc.name, tc.n, 256)
		if err != nil {
			t.Fatalf("%q: %v", tc.name, err)
		}
		if len(s.Sigmas) != tc.n+1 || len(s.Timesteps) != tc.n || s.Sigmas[0] != tc.first || s.Sigmas[tc.n] != 0 {
			t.Fatalf("%q: sigmas %v timesteps %v", tc.name, s.Sigmas, s.Timesteps)
		}
		for i := 0; i < tc.n; i++ {
			if !(s.Sigmas[i+1] < s.Sigmas[i]) {
				t.Fatalf("%q: sigmas not decreasing: %v", tc.name, s.Sigmas)
			}
			if s.Timesteps[i] != s.Sigmas[i]*1000 {
				t.Fatalf("%q: timestep %d = %v, sigma %v", tc.name, i, s.Timesteps[i], s.Sigmas[i])
			}
		}
	}
	for _, tc := range []struct {
		name   string
		n, seq int
	}{
		{"flow", 0, 256}, {"flow", -3, 256}, {"linear", 0, 256}, {"power", -1, 256},
		{"flow", 4, 0}, {"cosine", 4, 256}, {"power:0", 4, 256}, {"power:-2", 4, 256},
		{"power:abc", 4, 256}, {"power:NaN", 4, 256}, {"power:Inf", 4, 256},
	} {
		if _, err := ByName(tc.name, tc.n, tc.seq); err == nil {
			t.Errorf("ByName(%q, %d, %d): no error", tc.name, tc.n, tc.seq)
		}
	}
}

func TestLinearAndPower(t *testing.T) {
	l := Linear(4)
	if want := []float32{1, 0.75, 0.5, 0.25, 0}; equalBits(l.Sigmas, want) >= 0 {
		t.Errorf("Linear(4) = %v, want %v", l.Sigmas, want)
	}
	p := Power(4, 2)
	if want := []float32{1, 0.9375, 0.75, 0.4375, 0}; equalBits(p.Sigmas, want) >= 0 {
		t.Errorf("Power(4, 2) = %v, want %v", p.Sigmas, want)
	}
	if p1 := Power(7, 1); equalBits(p1.Sigmas, Linear(7).Sigmas) >= 0 {
		t.Errorf("Power(7, 1) = %v, Linear(7) = %v", p1.Sigmas, Linear(7).Sigmas)
	}
	if s := Flow(0, 16); s.Steps() != 0 || len(s.Sigmas) != 0 {
		t.Errorf("Flow(0) = %+v, want empty", s)
	}
}

// eulerStep is the pipeline's Euler step on a backend: x += (sigmaNext − sigma)·v, the
// difference rounded to float32 first.
func eulerStep(b gpu.Backend, x, v gpu.Tensor, sigma, sigmaNext float32) {
	b.AddScaled(x, v, sigmaNext-sigma)
}

func upload(t *testing.T, b gpu.Backend, v []float32) gpu.Tensor {
	t.Helper()
	x, err := gpu.FromHost(b, v)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func download(t *testing.T, b gpu.Backend, x gpu.Tensor) []float32 {
	t.Helper()
	v, err := gpu.ToHost(b, x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestEulerStep(t *testing.T) {
	b := backends.Default()
	x := upload(t, b, []float32{1, -2, 3})
	defer b.Free(x)
	v := upload(t, b, []float32{4, 0.5, -1})
	defer b.Free(v)
	eulerStep(b, x, v, 0.75, 0.5)
	if got, want := download(t, b, x), []float32{0, -2.125, 3.25}; equalBits(got, want) >= 0 {
		t.Errorf("Euler step = %v, want %v", got, want)
	}
}
