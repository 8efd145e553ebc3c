package sched

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kleinbild/weights/golden"
)

// TestGoldenSchedulerConfig: the golden model's scheduler_config.json (dynamic exponential
// shifting) gives the zero Config, whose flow schedule is bit-identical to Flow.
func TestGoldenSchedulerConfig(t *testing.T) {
	c, err := LoadConfig(filepath.Join(golden.TinyModel(t), "scheduler", "scheduler_config.json"))
	if err != nil {
		t.Fatal(err)
	}
	if c != (Config{}) {
		t.Fatalf("golden config = %+v, want the zero Config (dynamic shifting)", c)
	}
	for _, n := range []int{1, 3, 4, 28, 50} {
		for _, seq := range []int{6, 256, 4096, 5000} {
			got, err := c.ByName("", n, seq)
			if err != nil {
				t.Fatal(err)
			}
			want := Flow(n, seq)
			for i := range want.Sigmas {
				if math.Float32bits(got.Sigmas[i]) != math.Float32bits(want.Sigmas[i]) {
					t.Fatalf("n=%d seq=%d: sigma %d = %v, want %v", n, seq, i, got.Sigmas[i], want.Sigmas[i])
				}
			}
		}
	}
	// Other schedule names ignore the config.
	lin, err := Config{StaticShift: true, Shift: 5}.ByName("linear", 4, 16)
	if err != nil || lin.Sigmas[1] != Linear(4).Sigmas[1] {
		t.Errorf("linear under a static config: %v, %v", lin.Sigmas, err)
	}
}

// TestStaticShift: without use_dynamic_shifting the sigmas are shift·s/(1+(shift−1)·s) of
// linspace(1, 1/n, n); diffusers' defaults ("{}") mean shift 1, the plain linspace.
func TestStaticShift(t *testing.T) {
	c, err := ParseConfig([]byte(`{}`))
	if err != nil || c != (Config{StaticShift: true, Shift: 1}) {
		t.Fatalf("{} = %+v, %v; want static shift 1", c, err)
	}
	s := c.Flow(4, 100)
	for i, want := range []float32{1, 0.75, 0.5, 0.25, 0} {
		if s.Sigmas[i] != want {
			t.Errorf("shift 1: sigma %d = %v, want %v", i, s.Sigmas[i], want)
		}
	}
	c, err = ParseConfig([]byte(`{"use_dynamic_shifting": false, "shift": 3.0}`))
	if err != nil {
		t.Fatal(err)
	}
	s = c.Flow(4, 100)
	for i, x := range []float64{1, 0.75, 0.5, 0.25} {
		want := 3 * x / (1 + 2*x)
		if d := math.Abs(float64(s.Sigmas[i]) - want); d > 1e-7 {
			t.Errorf("shift 3: sigma %d = %v, want %v", i, s.Sigmas[i], want)
		}
		if s.Timesteps[i] != s.Sigmas[i]*NumTrainTimesteps {
			t.Errorf("timestep %d = %v", i, s.Timesteps[i])
		}
	}
	if s.Sigmas[4] != 0 || len(s.Sigmas) != 5 {
		t.Errorf("sigmas %v: want 5 ending in 0", s.Sigmas)
	}
}

// TestSchedulerConfigErrors: what the pipeline does not implement is refused with the field
// named (these once produced the default image silently).
func TestSchedulerConfigErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`[]`, "an object"},
		{`null`, "an object"},
		{`"flow"`, "an object"},
		{`{"shift": 3`, "malformed"},
		{`{"use_karras_sigmas": true}`, `"use_karras_sigmas"`},
		{`{"use_exponential_sigmas": true}`, `"use_exponential_sigmas"`},
		{`{"use_beta_sigmas": true}`, `"use_beta_sigmas"`},
		{`{"invert_sigmas": true}`, `"invert_sigmas"`},
		{`{"stochastic_sampling": true}`, `"stochastic_sampling"`},
		{`{"use_flow_sigmas": true}`, `"use_flow_sigmas"`},
		{`{"shift_terminal": 0.1}`, `"shift_terminal"`},
		{`{"time_shift_type": "linear"}`, `"time_shift_type" is "linear"`},
		{`{"time_shift_type": "cosine"}`, `"time_shift_type"`},
		{`{"num_train_timesteps": 500}`, `"num_train_timesteps"`},
		{`{"_class_name": "EulerDiscreteScheduler"}`, `"_class_name"`},
		{`{"shift": -1, "use_dynamic_shifting": false}`, `"shift"`},
		{`{"shift": "3"}`, `"shift"`},
		{`{"use_dynamic_shifting": "yes"}`, `"use_dynamic_shifting"`},
		{`{"base_image_seq_len": -4}`, `"base_image_seq_len"`},
		{`{"use_karras": true}`, `unknown field "use_karras"`},
	} {
		p := filepath.Join(t.TempDir(), "scheduler_config.json")
		if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadConfig(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %s and containing %q", tc.text, err, p, tc.want)
		}
	}
	if _, err := LoadConfig(filepath.Join(t.TempDir(), "scheduler_config.json")); err == nil || !strings.Contains(err.Error(), "scheduler_config.json") {
		t.Errorf("missing file: %v", err)
	}
}

// FuzzSchedulerConfig: ParseConfig never panics, and what it accepts builds a valid
// schedule (n+1 finite sigmas from at most 1 down to 0).
func FuzzSchedulerConfig(f *testing.F) {
	if raw, err := os.ReadFile(filepath.Join(golden.TinyModel(f), "scheduler", "scheduler_config.json")); err == nil {
		f.Add(raw)
	}
	for _, s := range []string{`{}`, `[]`, `null`, `{"use_dynamic_shifting": false, "shift": 3.0}`, `{"shift": 1e308}`,
		`{"time_shift_type": "linear"}`, `{"shift_terminal": null, "base_shift": 0.5}`, `{"a": [[[[]]]]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			return
		}
		s := c.Flow(4, 256)
		if len(s.Sigmas) != 5 || s.Sigmas[4] != 0 {
			t.Fatalf("%+v: sigmas %v", c, s.Sigmas)
		}
		for _, v := range s.Sigmas {
			if !(v >= 0 && v <= 1) {
				t.Fatalf("%+v: sigma %v out of [0, 1]", c, v)
			}
		}
	})
}

// LoadConfig takes the scheduler folder as well as the file, like the models' LoadConfig.
func TestLoadConfigFolder(t *testing.T) {
	dir := filepath.Join(golden.TinyModel(t), "scheduler")
	fromDir, err := LoadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := LoadConfig(filepath.Join(dir, "scheduler_config.json"))
	if err != nil || fromDir != fromFile {
		t.Fatalf("folder %+v, file %+v (%v)", fromDir, fromFile, err)
	}
}

// TestConfigIgnoresBookkeepingKeys: keys diffusers writes for its own bookkeeping
// (_name_or_path, _use_default_values) are ignored as diffusers ignores them, with the
// numerics unchanged (issue 23 item 13: newer diffusers' _name_or_path broke the model).
func TestConfigIgnoresBookkeepingKeys(t *testing.T) {
	base := `"_class_name": "FlowMatchEulerDiscreteScheduler", "shift": 3.0, "use_dynamic_shifting": false`
	want, err := ParseConfig([]byte("{" + base + "}"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseConfig([]byte(`{` + base + `, "_name_or_path": "black-forest-labs/FLUX.2-klein-4B", "_use_default_values": ["shift_terminal"]}`))
	if err != nil || got != want {
		t.Errorf("with bookkeeping keys: %+v, %v; want %+v", got, err, want)
	}
}
