package engine

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"

	"kleinbild/engine/source"
	"kleinbild/weights"
)

// corruptHint ends the errors about non-finite values a network produced.
const corruptHint = "run kleinbild info --deep to scan the weights"

// firstNonFinite returns the index of the first NaN or ±Inf in v, or -1.
func firstNonFinite(v []float32) int {
	for i, x := range v {
		if x-x != 0 { // NaN for NaN and ±Inf, 0 for every finite x
			return i
		}
	}
	return -1
}

// nonFiniteName spells a non-finite value.
func nonFiniteName(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case x > 0:
		return "+Inf"
	}
	return "-Inf"
}

// CheckFinite fails when v holds a NaN or an infinity, naming what v is, the first bad
// value and how many there are.
func CheckFinite(what string, v []float32) error {
	i := firstNonFinite(v)
	if i < 0 {
		return nil
	}
	n := 0
	for _, x := range v[i:] {
		if x-x != 0 {
			n++
		}
	}
	return fmt.Errorf("%s contain non-finite values: %d of %d, the first (value %d) is %s", what, n, len(v), i, nonFiniteName(float64(v[i])))
}

// outOfRange is the magnitude beyond which an input of the transformer (prompt embeddings,
// latents, an adapter's scale) is taken as the cause of non-finite latents: far above what a
// working model produces, close enough to float32's limit that a few products overflow.
const outOfRange = 1e8

// largestAbs is the largest magnitude in v (0 for none).
func largestAbs(v []float32) float64 {
	var m float64
	for _, x := range v {
		m = max(m, math.Abs(float64(x)))
	}
	return m
}

// nonFiniteCause names the likeliest source of non-finite latents after denoising step i
// (1-based) of p: out-of-range prompt embeddings (the text encoder's weights or
// --embeddings), out-of-range initial latents, an adapter of an out-of-range scale, the
// adapters, else the transformer's weights.
func nonFiniteCause(p Plan, text textInput, i int) string {
	switch {
	case text.maxAbs > outOfRange:
		return fmt.Sprintf("it came from the prompt embeddings, whose largest value %.3g is out of range: the text encoder's weights (or the --embeddings file) may be corrupt", text.maxAbs)
	case i == 1 && largestAbs(p.Request.Latents) > outOfRange:
		return fmt.Sprintf("it came from the initial latents, whose largest value %.3g is out of range", largestAbs(p.Request.Latents))
	}
	for _, w := range p.Request.Adapters {
		for _, t := range w.Adapter.Terms {
			if sc := math.Abs(float64(t.Scale) * float64(w.Strength)); sc > outOfRange || math.IsNaN(sc) {
				return fmt.Sprintf("it came from the adapter %s, whose scale %.3g for %s (alpha/rank × strength) is out of range", filepath.Base(w.Adapter.Path), sc, t.Module)
			}
		}
	}
	if len(p.Request.Adapters) > 0 {
		return "the transformer's weights or its adapters may be corrupt (try without the adapters)"
	}
	return "the transformer weights may be corrupt"
}

// BadTensor is a weight tensor holding NaN or infinite values.
type BadTensor struct {
	Component string // "transformer", ...
	File      string // path of the safetensors file
	Name      string
	DType     weights.DType
	// Count is the number of non-finite values, First the index of the first, Value its
	// spelling ("NaN", "+Inf", "-Inf").
	Count, First int
	Value        string
}

func (b BadTensor) String() string {
	return fmt.Sprintf("%s tensor %q (%s, %s): %d non-finite values, the first at index %d is %s",
		b.Component, b.Name, b.DType, filepath.Base(b.File), b.Count, b.First, b.Value)
}

// ScanProgress reports ScanWeights' progress in bytes over all components.
type ScanProgress struct {
	Component         string
	Bytes, TotalBytes int64
}

// ScanWeights is ScanSource on the model folder dir (read as by OpenFolder, without the
// checks of Inspect: a folder missing other files is scanned all the same).
func ScanWeights(ctx context.Context, dir string, progress func(ScanProgress)) ([]BadTensor, error) {
	return ScanSource(ctx, source.FolderSource(ModelInfo{Dir: dir}), progress)
}

// ScanSource reads every floating-point weight tensor (BF16, F16, F32) of the model's text
// encoder, transformer and VAE and returns the tensors holding NaN or ±Inf, in file order.
// progress (may be nil) is called after each tensor. It reads the bit patterns in place,
// without converting, and drops each file's pages when done with it. A file that shrinks
// during the scan is an error wrapping weights.ErrFileChanged and naming it.
func ScanSource(ctx context.Context, src Source, progress func(ScanProgress)) ([]BadTensor, error) {
	var cks []weights.Source
	defer func() {
		for _, c := range cks {
			c.Close()
		}
	}()
	var total int64
	for _, comp := range WeightComponents {
		c, err := src.Tensors(comp)
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", comp, err)
		}
		cks = append(cks, c)
		total += c.MappedBytes()
	}
	var bad []BadTensor
	var done int64
	for i, c := range cks {
		comp := string(WeightComponents[i])
		for _, name := range c.Names() {
			if err := ctx.Err(); err != nil {
				return bad, err
			}
			t, err := c.Tensor(name)
			if err != nil {
				return bad, fmt.Errorf("scan %s: %w", comp, err)
			}
			// A file that shrinks during the scan faults on its mapping: an error naming it.
			err = weights.Guard(t.File, func() error {
				dtype, b, err := scanBytes(t)
				if err != nil {
					return err
				}
				if n, first, val := scanTensor(dtype, b); n > 0 {
					bad = append(bad, BadTensor{Component: comp, File: t.File, Name: name, DType: t.DType, Count: n, First: first, Value: val})
				}
				done += scanned(t, b)
				return nil
			})
			if err != nil {
				return bad, fmt.Errorf("scan %s: %w", comp, err)
			}
			if progress != nil {
				progress(ScanProgress{Component: comp, Bytes: done, TotalBytes: total})
			}
		}
		c.Release()
	}
	return bad, nil
}

// scanBytes returns the bytes to scan of t and their type: a block-quantized tensor (GGUF) is
// dequantized into a transient float32 copy, not kept on the tensor, so that scanning a
// quantized model does not grow to its float32 size.
func scanBytes(t *weights.Tensor) (weights.DType, []byte, error) {
	if q := t.Quantized(); q != nil {
		b, err := q.Decode()
		if err != nil {
			return 0, nil, fmt.Errorf("%s: tensor %q (%s): %w", t.File, t.Name, q.Type, err)
		}
		return weights.F32, b, nil
	}
	return t.DType, t.Bytes(), nil
}

// scanned is the number of file bytes that scanning t covered (a quantized tensor's packed
// size, not its decoded one), for progress against MappedBytes.
func scanned(t *weights.Tensor, b []byte) int64 {
	if q := t.Quantized(); q != nil {
		return int64(len(q.Data))
	}
	return int64(len(b))
}

// scanTensor counts the non-finite values in the bytes b of a tensor of type dtype (other
// than float types have none): those whose exponent bits are all ones.
func scanTensor(dtype weights.DType, b []byte) (n, first int, value string) {
	first = -1
	note := func(i int, x float64) {
		if n == 0 {
			first, value = i, nonFiniteName(x)
		}
		n++
	}
	switch dtype {
	case weights.F32:
		for i := 0; i+4 <= len(b); i += 4 {
			if u := binary.LittleEndian.Uint32(b[i:]); u&0x7f800000 == 0x7f800000 {
				note(i/4, float64(math.Float32frombits(u)))
			}
		}
	case weights.BF16:
		for i := 0; i+2 <= len(b); i += 2 {
			if u := binary.LittleEndian.Uint16(b[i:]); u&0x7f80 == 0x7f80 {
				note(i/2, float64(math.Float32frombits(uint32(u)<<16)))
			}
		}
	case weights.F16:
		for i := 0; i+2 <= len(b); i += 2 {
			if u := binary.LittleEndian.Uint16(b[i:]); u&0x7c00 == 0x7c00 {
				x := math.Inf(1)
				switch {
				case u&0x3ff != 0:
					x = math.NaN()
				case u&0x8000 != 0:
					x = math.Inf(-1)
				}
				note(i/2, x)
			}
		}
	}
	return n, first, value
}
