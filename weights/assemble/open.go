package assemble

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"kleinbild/internal/safefile"
	"kleinbild/weights"
	"kleinbild/weights/gguf"
	"kleinbild/weights/remap"
)

// Component is one model component read from a single file (a GGUF, a BFL or ComfyUI
// safetensors file): its tensors under diffusers / transformers names, the config.json its
// shapes (and GGUF metadata) give, and what was found, for info output and image metadata.
type Component struct {
	Path       string
	Format     string // "gguf" or "safetensors"
	Naming     remap.Naming
	Checkpoint *weights.Checkpoint
	Config     []byte         // config.json inferred from the tensors (see remap's *Config)
	Types      map[string]int // storage type ("Q4_K", "BF16", ...) -> number of source tensors
	Names      []string       // source tensor names, in file order
	Shapes     remap.Shapes   // target shapes, all of them (also those the plan leaves out)
	size       int64
	loaded     int64
}

// Close closes the checkpoint and the file under it (nothing for an Inspect result).
func (c *Component) Close() error {
	if c.Checkpoint == nil {
		return nil
	}
	return c.Checkpoint.Close()
}

// Bytes is the size of the file.
func (c *Component) Bytes() int64 { return c.size }

// LoadedBytes is about the memory the opened weights take: the file's size (it is mapped),
// and for a GGUF four bytes per weight of each quantized tensor that is not a Linear weight
// (token_embd: dequantized to float32) instead of its packed size. Quantized Linear weights
// count packed: the loaders hand them to the backend as they are (a backend that refuses
// them takes float32 copies, which this does not count).
func (c *Component) LoadedBytes() int64 { return c.loaded }

// IsGGUF reports whether the file at path starts with the GGUF magic. The file is opened
// through the guarded opener (a FIFO or device is refused).
func IsGGUF(path string) (bool, error) {
	f, _, err := safefile.OpenRegular(path, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var magic [4]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil {
		return false, nil // shorter than a magic: not GGUF (the safetensors reader says why)
	}
	return string(magic[:]) == "GGUF", nil
}

// source is an open file of either format, reduced to what planning needs.
type source struct {
	format string
	names  []string
	shapes map[string][]int
	types  map[string]int
	gf     *gguf.File
	ck     *weights.Checkpoint
	size   int64
	loaded int64 // bytes in memory once opened (GGUF); 0: size
	// describe: build only the description (no checkpoint; the file is closed).
	describe bool
}

func openSource(path string) (*source, error) {
	isGGUF, err := IsGGUF(path)
	if err != nil {
		return nil, err
	}
	s := &source{shapes: map[string][]int{}, types: map[string]int{}}
	if fi, err := os.Stat(path); err == nil {
		s.size = fi.Size()
	}
	if isGGUF {
		if s.gf, err = gguf.Open(path); err != nil {
			return nil, err
		}
		s.format = "gguf"
		for _, t := range s.gf.Tensors() {
			n := int64(t.Numel())
			if dt, ok := plainTypes[t.Type]; ok {
				s.loaded += n * int64(dt.Size())
			} else if len(t.Shape) == 2 && !strings.HasPrefix(t.Name, "token_embd.") && !strings.Contains(t.Name, "embed_tokens") {
				s.loaded += int64(len(t.Bytes())) // a Linear weight, kept packed
			} else {
				s.loaded += 4 * n // dequantized to float32
			}
			s.names = append(s.names, t.Name)
			s.shapes[t.Name] = t.Shape
			s.types[t.Type.String()]++
		}
		return s, nil
	}
	f, err := weights.OpenFile(path)
	if err != nil {
		return nil, err
	}
	if s.ck, err = weights.NewCheckpoint(path, f); err != nil {
		return nil, err
	}
	s.format = "safetensors"
	s.names = s.ck.Names()
	for _, n := range s.names {
		t, _ := s.ck.Tensor(n)
		s.shapes[n] = t.Shape
		s.types[t.DType.String()]++
	}
	return s, nil
}

func (s *source) close() {
	if s.gf != nil {
		s.gf.Close()
	}
	if s.ck != nil {
		s.ck.Close()
	}
}

// build makes the component: full is the plan of every tensor (for the config), load the
// plan of the tensors to read.
func (s *source) build(path string, naming remap.Naming, full, load remap.Plan, config func(remap.Shapes) ([]byte, error)) (*Component, error) {
	shapes, err := full.Shapes(s.shapes)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	cfg, err := config(shapes)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c := &Component{Path: path, Format: s.format, Naming: naming, Config: cfg, Types: s.types, Names: slices.Clone(s.names), Shapes: shapes, size: s.size, loaded: max(s.loaded, s.size)}
	if s.describe {
		s.close()
		return c, nil
	}
	if s.gf != nil {
		c.Checkpoint, err = FromGGUF(s.gf, load) // owns s.gf from here
	} else {
		c.Checkpoint, err = fromCheckpoint(s.ck, load, s.ck.Close)
		if err != nil {
			s.ck.Close()
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// OpenTransformer reads a FLUX.2 transformer file: GGUF (ComfyUI-GGUF or stable-diffusion.cpp
// layout) or safetensors (BFL single file, or diffusers names).
func OpenTransformer(path string) (*Component, error) { return openTransformer(path, false) }

// DescribeTransformer is OpenTransformer without the weights: naming, config, types and
// shapes, from the header alone (nothing is dequantized). Checkpoint is nil.
func DescribeTransformer(path string) (*Component, error) { return openTransformer(path, true) }

func openTransformer(path string, describe bool) (*Component, error) {
	s, err := openSource(path)
	if err != nil {
		return nil, err
	}
	s.describe = describe
	plan, naming, err := remap.Transformer(s.names)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s.build(path, naming, plan, plan, remap.Flux2Config)
}

// OpenTextEncoder reads a Qwen3 text encoder file: a llama.cpp GGUF or a transformers-named
// safetensors file (ComfyUI's qwen_3_4b.safetensors). Decoder layers above maxLayer are not
// read (maxLayer < 0: all); the config still counts every layer of the file. A GGUF's
// qwen3.rope.freq_base, qwen3.attention.layer_norm_rms_epsilon and qwen3.context_length
// go into the config.
func OpenTextEncoder(path string, maxLayer int) (*Component, error) {
	return openTextEncoder(path, maxLayer, false)
}

// DescribeTextEncoder is OpenTextEncoder without the weights (see DescribeTransformer).
func DescribeTextEncoder(path string) (*Component, error) { return openTextEncoder(path, -1, true) }

func openTextEncoder(path string, maxLayer int, describe bool) (*Component, error) {
	s, err := openSource(path)
	if err != nil {
		return nil, err
	}
	s.describe = describe
	full, naming, err := remap.TextEncoder(s.names, -1)
	var load remap.Plan
	if err == nil {
		load, _, err = remap.TextEncoder(s.names, maxLayer)
	}
	if err != nil {
		s.close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var p remap.Qwen3Params
	if s.gf != nil {
		if p.RopeTheta, err = positiveFloat(s.gf, "qwen3.rope.freq_base"); err == nil {
			p.RMSNormEps, err = positiveFloat(s.gf, "qwen3.attention.layer_norm_rms_epsilon")
		}
		if err != nil {
			s.close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if v, ok := s.gf.Uint("qwen3.context_length"); ok && v <= 1<<30 {
			p.MaxPosition = int(v)
		}
	}
	return s.build(path, naming, full, load, func(sh remap.Shapes) ([]byte, error) { return remap.Qwen3Config(sh, p) })
}

// positiveFloat reads the float metadata value key of f as a config value (0 when absent):
// a value that is not a finite positive float32 (NaN, an infinity, zero) is an error naming
// the key; it reached the config's JSON encoding as "json: unsupported value: NaN".
func positiveFloat(f *gguf.File, key string) (float64, error) {
	v, ok := f.Float(key)
	if !ok {
		return 0, nil
	}
	if x := float32(v); !(x > 0) || math.IsInf(float64(x), 0) {
		return 0, fmt.Errorf("GGUF metadata %s is %v: want a finite positive number", key, v)
	}
	return remap.Float32Decimal(float32(v)), nil
}

// OpenVAE reads a FLUX.2 autoencoder file (BFL ae.safetensors or diffusers names). groups is
// the GroupNorm group count, which the weights do not record (0: FLUX.2's 32).
func OpenVAE(path string, groups int) (*Component, error) { return openVAE(path, groups, false) }

// DescribeVAE is OpenVAE without the weights (see DescribeTransformer).
func DescribeVAE(path string, groups int) (*Component, error) { return openVAE(path, groups, true) }

func openVAE(path string, groups int, describe bool) (*Component, error) {
	s, err := openSource(path)
	if err != nil {
		return nil, err
	}
	s.describe = describe
	plan, naming, err := remap.VAE(s.names)
	if err != nil {
		s.close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s.build(path, naming, plan, plan, func(sh remap.Shapes) ([]byte, error) { return remap.VAEConfig(sh, groups) })
}
