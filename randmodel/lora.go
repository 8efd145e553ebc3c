package randmodel

import (
	"fmt"
	"math"
	"os"

	"kleinbild/engine/flux2"
	"kleinbild/engine/lora"
)

// TransformerLayers lists the linear layers (diffusers name → [out, in]) of the variant's
// transformer: what a random adapter for it covers.
func TransformerLayers(v Variant) (lora.Layers, error) {
	d, ok := dims[v]
	if !ok {
		return nil, fmt.Errorf("randmodel: unknown variant %q", v)
	}
	raw, err := configJSON(transformerConfig(d))
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "kleinbild-config-*.json")
	if err != nil {
		return nil, fmt.Errorf("randmodel: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(raw)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("randmodel: %w", err)
	}
	cfg, err := flux2.LoadConfig(f.Name())
	if err != nil {
		return nil, err
	}
	return lora.LayersOf(flux2.TensorSpecs(cfg)), nil
}

// CheckAlpha refuses an adapter alpha that is not a finite float32 (NaN, an infinity,
// 1e308): the file's lora_adapter_metadata could not hold it, and generate refused the
// adapter written with it.
func CheckAlpha(a float64) error {
	if math.IsNaN(a) || math.IsInf(float64(float32(a)), 0) {
		return fmt.Errorf("alpha %v is not a finite number of float32 range (0: the rank)", a)
	}
	return nil
}

// WriteAdapter writes a random adapter of every linear layer of the variant's transformer
// to path (lora.WriteRandom: opts gives rank, alpha, format and seed).
func WriteAdapter(path string, v Variant, opts lora.RandomOptions) error {
	if err := CheckAlpha(float64(opts.Alpha)); err != nil {
		return fmt.Errorf("randmodel: %w", err)
	}
	layers, err := TransformerLayers(v)
	if err != nil {
		return err
	}
	return lora.WriteRandom(path, layers, opts)
}
