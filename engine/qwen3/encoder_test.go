package qwen3

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"kleinbild/gpu"
	"kleinbild/gpu/backends"
	"kleinbild/weights/golden"
)

// relTol is the rel-L2 bound against the float32 reference; the reference itself moves
// ~1e-6 between its float32 and float64 runs (golden/tolerances.json).
const relTol = 1e-5

// testBackend is the default backend, shared by the package's tests.
var testBackend = sync.OnceValue(func() gpu.Backend { return backends.Default() })

func loadTiny(t *testing.T) *Encoder {
	t.Helper()
	e, err := Load(filepath.Join(golden.TinyModel(t), "text_encoder"), testBackend())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(); err != nil {
			t.Error(err)
		}
	})
	return e
}

// promptInputs returns the token ids and attention mask of golden prompt k.
func promptInputs(t *testing.T, k int) (ids, mask []int) {
	t.Helper()
	f := golden.Open(t, fmt.Sprintf("qwen3/qwen3_prompt%d.safetensors", k))
	ids64, _ := golden.I64(t, f, "input_ids")
	mask64, _ := golden.I64(t, f, "attention_mask")
	ids, mask = make([]int, len(ids64)), make([]int, len(mask64))
	for i := range ids64 {
		ids[i] = int(ids64[i])
	}
	for i := range mask64 {
		mask[i] = int(mask64[i])
	}
	return ids, mask
}

func TestEncodePrompts(t *testing.T) {
	e := loadTiny(t)
	for k := range 4 {
		ids, mask := promptInputs(t, k)
		want, shape := golden.F32(t, golden.Open(t, fmt.Sprintf("qwen3/qwen3_prompt%d.safetensors", k)), "prompt_embeds")
		var calls, lastDone, lastTotal int
		got, err := e.Encode(context.Background(), ids, mask, DefaultLayers, func(done, total int) {
			calls++
			if done != calls {
				t.Errorf("progress done %d on call %d", done, calls)
			}
			lastDone, lastTotal = done, total
		})
		if err != nil {
			t.Fatal(err)
		}
		if shape[1] != len(ids) || shape[2] != 3*e.Config().HiddenSize {
			t.Fatalf("golden prompt_embeds shape %v, encoder gives [%d, %d]", shape, len(ids), 3*e.Config().HiddenSize)
		}
		golden.Compare(t, fmt.Sprintf("prompt%d prompt_embeds", k), got, want, relTol)
		// Only the layers up to the highest requested index run.
		if calls != 27 || lastDone != 27 || lastTotal != 27 {
			t.Errorf("progress: %d calls, last (%d, %d), want 27 calls ending (27, 27)", calls, lastDone, lastTotal)
		}
	}
}

func TestHiddenStatesPerLayer(t *testing.T) {
	e := loadTiny(t)
	ids, mask := promptInputs(t, 0)
	want, shape := golden.F32(t, golden.Open(t, "qwen3/qwen3_prompt0.safetensors"), "hidden_states")
	n := e.Config().NumHiddenLayers
	if shape[0] != n+1 {
		t.Fatalf("golden hidden_states has %d entries, config has %d layers", shape[0], n)
	}
	got, err := e.HiddenStates(context.Background(), ids, mask, n)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n+1 {
		t.Fatalf("HiddenStates returned %d states, want %d", len(got), n+1)
	}
	per := len(ids) * e.Config().HiddenSize
	for i, hs := range got {
		golden.Compare(t, fmt.Sprintf("hidden_states[%d]", i), hs, want[i*per:(i+1)*per], relTol)
	}
}

// TestEncodeEndpoints covers the embedding (index 0), the final norm (index num_layers) and
// an unsorted, repeated layer list.
func TestEncodeEndpoints(t *testing.T) {
	e := loadTiny(t)
	ids, mask := promptInputs(t, 0)
	want, _ := golden.F32(t, golden.Open(t, "qwen3/qwen3_prompt0.safetensors"), "hidden_states")
	n, h := e.Config().NumHiddenLayers, e.Config().HiddenSize
	layers := []int{n, 0, 5, 0}
	got, err := e.Encode(context.Background(), ids, mask, layers, nil)
	if err != nil {
		t.Fatal(err)
	}
	per := len(ids) * h
	for k, l := range layers {
		col := make([]float32, per)
		for tok := range len(ids) {
			copy(col[tok*h:(tok+1)*h], got[tok*len(layers)*h+k*h:])
		}
		golden.Compare(t, fmt.Sprintf("Encode column %d = hidden_states[%d]", k, l), col, want[l*per:(l+1)*per], relTol)
	}
}

func TestEncodeBadInputs(t *testing.T) {
	e := loadTiny(t)
	ids, mask := promptInputs(t, 0)
	vocab := e.Config().VocabSize
	with := func(s []int, i, v int) []int {
		s = append([]int(nil), s...)
		s[i] = v
		return s
	}
	cases := []struct {
		name      string
		ids, mask []int
		layers    []int
	}{
		{"id equal to vocab size", with(ids, 3, vocab), mask, DefaultLayers},
		{"negative id", with(ids, 0, -1), mask, DefaultLayers},
		{"len(ids) != len(mask)", ids, mask[:100], DefaultLayers},
		{"empty sequence", nil, nil, DefaultLayers},
		{"mask value 2", ids, with(mask, 0, 2), DefaultLayers},
		{"left padding", ids, with(mask, 0, 0), DefaultLayers},
		{"no real tokens", ids, make([]int, len(ids)), DefaultLayers},
		{"no layers", ids, mask, nil},
		{"layer beyond the model", ids, mask, []int{9, 29}},
		{"negative layer", ids, mask, []int{-1}},
	}
	for _, c := range cases {
		if _, err := e.Encode(context.Background(), c.ids, c.mask, c.layers, nil); err == nil {
			t.Errorf("%s: no error", c.name)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
	}
	if _, err := e.HiddenStates(context.Background(), ids, mask, 29); err == nil {
		t.Error("HiddenStates beyond the model: no error")
	}
}

func TestEncodeCancel(t *testing.T) {
	e := loadTiny(t)
	ids, mask := promptInputs(t, 0)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Encode(ctx, ids, mask, DefaultLayers, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before start: err = %v, want context.Canceled", err)
	}

	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	last := 0
	_, err := e.Encode(ctx, ids, mask, DefaultLayers, func(done, total int) {
		last = done
		if done == 5 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during encoding: err = %v, want context.Canceled", err)
	}
	if last != 5 {
		t.Errorf("encoding went on to layer %d after cancellation at 5", last)
	}
	t.Logf("cancelled: %v", err)
}

func TestClosedEncoder(t *testing.T) {
	e := loadTiny(t)
	ids, mask := promptInputs(t, 3)
	e.Release()
	if _, err := e.Encode(context.Background(), ids, mask, DefaultLayers, nil); err != nil {
		t.Fatalf("encode after Release: %v", err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Encode(context.Background(), ids, mask, DefaultLayers, nil); err == nil {
		t.Error("encode after Close: no error")
	}
}

// TestReleaseFreesTensors checks the backend's accounting: the weights become tensors on
// first use (only the layers a call needs), Release and Close free them, and every call
// frees its activations.
func TestReleaseFreesTensors(t *testing.T) {
	b := testBackend()
	before := b.Memory()
	e, err := Load(filepath.Join(golden.TinyModel(t), "text_encoder"), b)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if m := b.Memory(); m.Viewed != before.Viewed || m.Resident != before.Resident {
		t.Errorf("after Load: %+v, want the %+v of before (tensors are made on first use)", m, before)
	}
	ids, mask := promptInputs(t, 1)
	if _, err := e.Encode(context.Background(), ids, mask, []int{3}, nil); err != nil {
		t.Fatal(err)
	}
	// Weights are viewed (CPU) or copied (GPU): count both. Activations are freed after each
	// call, which a viewing backend shows as an unchanged Resident.
	held := func(m gpu.MemStats) int64 { return m.Viewed + m.Resident }
	views := func(m gpu.MemStats) bool { return m.Viewed > before.Viewed }
	three := b.Memory()
	if held(three) <= held(before) || (views(three) && three.Resident != before.Resident) {
		t.Errorf("after encoding 3 layers: %+v (before %+v): want more weights, no activations left", three, before)
	}
	if _, err := e.Encode(context.Background(), ids, mask, DefaultLayers, nil); err != nil {
		t.Fatal(err)
	}
	all := b.Memory()
	if held(all) <= held(three) || (views(all) && all.Resident != before.Resident) {
		t.Errorf("after encoding 27 layers: %+v (3 layers %+v)", all, three)
	}
	e.Release()
	if m := b.Memory(); held(m) != held(before) {
		t.Errorf("after Release: %+v, want %+v", m, before)
	}
	if _, err := e.Encode(context.Background(), ids, mask, DefaultLayers, nil); err != nil {
		t.Fatal(err)
	}
	if m := b.Memory(); held(m) != held(all) {
		t.Errorf("after encoding again: %+v, want %+v", m, all)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if m := b.Memory(); m.Viewed != before.Viewed || m.Resident != before.Resident {
		t.Errorf("after Close: %+v, want %+v", m, before)
	}
}

// TestConcurrentEncode runs encodes side by side with Release calls: each result must equal
// the one of a call alone.
func TestConcurrentEncode(t *testing.T) {
	e := loadTiny(t)
	ids, mask := promptInputs(t, 2)
	want, err := e.Encode(context.Background(), ids, mask, DefaultLayers, nil)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			if i == 0 {
				for range 3 {
					e.Release()
				}
				return
			}
			got, err := e.Encode(context.Background(), ids, mask, DefaultLayers, nil)
			if err == nil && !slices.Equal(got, want) {
				err = fmt.Errorf("encode %d differs from the encode alone", i)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// countdownCtx is a context that is cancelled after its Err has been asked n times: it
// stops work at an exact check point without timing.
type countdownCtx struct {
	context.Context
	n int
}

func (c *countdownCtx) Err() error {
	c.n--
	if c.n < 0 {
		return context.Canceled
	}
	return nil
}

// TestEncodeCancelWhileBinding cancels while the layers' weights go to the backend (the
// first pass after load or Release, seconds on the full-size model): binding stops
// between layers, and the next pass binds the rest and encodes as before. (Before:
// binding ran every layer and only then saw the cancel.)
func TestEncodeCancelWhileBinding(t *testing.T) {
	e := loadTiny(t)
	ids, mask := promptInputs(t, 0)
	want, err := e.Encode(context.Background(), ids, mask, DefaultLayers, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.Release()
	// Err calls: one as the pass starts, then one per layer bound.
	_, err = e.Encode(&countdownCtx{Context: context.Background(), n: 2}, ids, mask, DefaultLayers, nil)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled while binding: err = %v, want context.Canceled", err)
	}
	if n, upto := len(e.bound.layers), slices.Max(DefaultLayers); n >= upto {
		t.Errorf("%d layers bound after a cancel during binding, all the pass needs (%d)", n, upto)
	}
	got, err := e.Encode(context.Background(), ids, mask, DefaultLayers, nil)
	if err != nil {
		t.Fatalf("encode after a cancelled bind: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d values, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("value %d: %v after a cancelled bind, %v before", i, got[i], want[i])
		}
	}
}
