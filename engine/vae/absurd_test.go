package vae

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"kleinbild/gpu/gputest"
	"kleinbild/weights/golden"
)

// tinyConfigWith returns the tiny VAE's config.json with edits applied.
func tinyConfigWith(t *testing.T, edits map[string]any) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(golden.TinyModel(t), "vae", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range edits {
		m[k] = v
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestAbsurdConfig: layers_per_block 1,000,000,000 once grew the loader to 3.7 GB before
// dying; 3 (more than the 2 resnets present) bound every level before failing. Each absurd
// value must fail at once with little memory, naming config.json and the field.
func TestAbsurdConfig(t *testing.T) {
	base := tinyTensors(t)
	for _, tc := range []struct {
		edits map[string]any
		want  []string
	}{
		{map[string]any{"layers_per_block": 1_000_000_000}, []string{"layers_per_block 1000000000"}},
		{map[string]any{"layers_per_block": 3}, []string{`"layers_per_block" is 3`, "hold 2 encoder.down_blocks.0.resnets"}},
		{map[string]any{"block_out_channels": []int{16, 32, 64, 64, 64}, "down_block_types": make([]string, 5)}, []string{"down block type"}},
		{map[string]any{"latent_channels": 1 << 40}, []string{"latent_channels"}},
		{map[string]any{"block_out_channels": []int{16, 32, 64, 1 << 30}}, []string{"block channel count 1073741824"}},
		{map[string]any{"norm_num_groups": 1 << 40}, []string{"norm_num_groups"}},
		{map[string]any{"batch_norm_eps": 1e300}, []string{"batch_norm_eps"}},
	} {
		dir := writeVAE(t, base, tinyConfigWith(t, tc.edits))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		b := &gputest.Counting{Backend: device()}
		v, err := Load(dir, b)
		runtime.ReadMemStats(&after)
		if err == nil {
			v.Close()
			t.Fatalf("%v: no error", tc.edits)
		}
		for _, w := range append(tc.want, filepath.Join(dir, "config.json")) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not mention %q", tc.edits, err, w)
			}
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
			t.Errorf("%v: allocated %d bytes before failing", tc.edits, alloc)
		}
		// The work done before failing, counted rather than timed (a loaded machine must not
		// fail the test): no layer built, so no tensor made on the backend.
		if b.Tensors > 0 {
			t.Errorf("%v: %d tensors made on the backend before failing", tc.edits, b.Tensors)
		}
	}
	// Five levels with supported block types: the weights hold four.
	dir := writeVAE(t, base, tinyConfigWith(t, map[string]any{
		"block_out_channels": []int{16, 32, 64, 64, 64},
		"down_block_types":   []string{"DownEncoderBlock2D", "DownEncoderBlock2D", "DownEncoderBlock2D", "DownEncoderBlock2D", "DownEncoderBlock2D"},
		"up_block_types":     []string{"UpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D", "UpDecoderBlock2D"},
	}))
	_, err := Load(dir, device())
	wantErr(t, err, `"block_out_channels" has 5 levels, but the weights hold 4 encoder.down_blocks`, filepath.Join(dir, "config.json"))
}
