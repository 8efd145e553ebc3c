package flux2

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
)

// TestAbsurdConfig: absurd block counts, head counts and widths in config.json must fail
// at once with little memory, naming config.json and the field, before anything sized by
// them is allocated or bound (1000 double blocks once meant 16,000 tensor errors).
// countingBackend counts the tensors made on it (allocations and weights).
type countingBackend struct {
	gpu.Backend
	tensors int
}

func (b *countingBackend) Alloc(dt gpu.DType, shape ...int) (gpu.Tensor, error) {
	b.tensors++
	return b.Backend.Alloc(dt, shape...)
}

func (b *countingBackend) WeightF32(data []float32, shape ...int) (gpu.Tensor, error) {
	b.tensors++
	return b.Backend.WeightF32(data, shape...)
}

func (b *countingBackend) WeightBF16(bits []uint16, shape ...int) (gpu.Tensor, error) {
	b.tensors++
	return b.Backend.WeightBF16(bits, shape...)
}

func TestAbsurdConfig(t *testing.T) {
	base := tinyTensors(t)
	for _, tc := range []struct {
		field string
		v     any
		want  string
	}{
		{"num_layers", 1_000_000_000, "num_layers 1000000000"},
		{"num_layers", 1000, `field "num_layers" is 1000, but the weights hold 2 transformer_blocks`},
		{"num_single_layers", 1000, `field "num_single_layers" is 1000, but the weights hold 2 single_transformer_blocks`},
		{"num_attention_heads", 1_000_000_000, "num_attention_heads = 1000000000"},
		{"num_attention_heads", 1 << 16, "hidden size 65536×32 too large"},
		{"attention_head_dim", 1 << 40, "attention_head_dim = 1099511627776"},
		{"joint_attention_dim", -1, "joint_attention_dim = -1"},
		{"in_channels", 1 << 30, "in_channels = 1073741824"},
		{"mlp_ratio", 1e300, "mlp_ratio"},
		{"axes_dims_rope", []int{8, 8, 8, 1 << 40}, "axes_dims_rope"},
	} {
		cfg := tinyConfig(t)
		cfg[tc.field] = tc.v
		dir := writeModel(t, cfg, base)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b := &countingBackend{Backend: backends.Default()}
		m, err := Load(dir, b)
		runtime.ReadMemStats(&after)
		if err == nil {
			m.Close()
			t.Fatalf("%s = %v: no error", tc.field, tc.v)
		}
		msg := err.Error()
		if !strings.Contains(msg, tc.want) || !strings.Contains(msg, "config.json") || !strings.Contains(msg, dir) {
			t.Errorf("%s = %v: error %q should name %s and contain %q", tc.field, tc.v, msg, filepath.Join(dir, "config.json"), tc.want)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
			t.Errorf("%s = %v: allocated %d bytes before failing", tc.field, tc.v, alloc)
		}
		// The work done before failing, counted rather than timed (a loaded machine must not
		// fail the test): no layer built, so no tensor made on the backend.
		if b.tensors > 0 {
			t.Errorf("%s = %v: %d tensors made on the backend before failing", tc.field, tc.v, b.tensors)
		}
	}
}
