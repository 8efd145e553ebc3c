package qwen3

import (
	"errors"
	"fmt"
	"path/filepath"

	"kleinbild/engine/bind"
	"kleinbild/gpu"
	"kleinbild/weights"
)

// Load opens a text_encoder folder: config.json plus model.safetensors or a sharded
// checkpoint with model.safetensors.index.json. Every tensor the encoder needs is checked
// (presence, shape, dtype) before it returns. Matrices stay bf16 (or f32) views into the
// memory-mapped files; only the small norm vectors are converted to float32. The backend
// tensors are made from them on first use (views of the mapping on the CPU backends, a copy
// on a GPU) and dropped by Release and Close.
func Load(dir string, b gpu.Backend) (*Encoder, error) {
	if b == nil {
		return nil, errors.New("qwen3: nil backend")
	}
	cfg, err := LoadConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, err // names the file already
	}
	ckpt, err := weights.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("qwen3: weights: %w", err)
	}
	e, err := LoadFrom(dir, cfg, ckpt, b)
	if err != nil {
		ckpt.Close()
		return nil, err
	}
	return e, nil
}

// LoadFrom binds the encoder cfg describes to the tensors of src, checked as by Load; where
// names src in errors. The encoder owns src from then on (Close closes it); on error the
// caller still does.
func LoadFrom(where string, cfg Config, src weights.Source, b gpu.Backend) (*Encoder, error) {
	if b == nil {
		return nil, errors.New("qwen3: nil backend")
	}
	e, err := newEncoder(cfg, b, src)
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", bind.Within(where, err))
	}
	e.where = where
	return e, nil
}

// TensorSpec is the name and shape of one tensor a text encoder checkpoint must hold.
type TensorSpec = weights.TensorSpec

// TensorSpecs lists every tensor Load reads for cfg, with the Qwen3ForCausalLM names of the
// real checkpoints ("model." prefix; the tied lm_head is not read), in model order: the
// embedding, the decoder layers, the final norm. It is the list Load checks: both come from
// the same binding code.
func TensorSpecs(cfg Config) []TensorSpec {
	bd := bind.Record()
	bd.SetPrefix("model.")
	readWeights(bd, &Encoder{cfg: cfg})
	return bd.Specs()
}

// maxLoadErrors caps how many tensor problems a load error lists.
const maxLoadErrors = 8

func newEncoder(cfg Config, b gpu.Backend, ckpt weights.Source) (*Encoder, error) {
	return newEncoderLayers(cfg, b, ckpt, 0)
}

// LoadLayers is LoadFrom reading only decoder layers 0..layers-1 (0: all): for a checkpoint
// that leaves out the layers above the deepest hidden state the pipeline takes (27 of
// Qwen3-4B's 36). cfg keeps the model's full layer count, so hidden-state indices mean what
// they mean for the whole model; asking for a hidden state above layers is an error.
func LoadLayers(where string, cfg Config, src weights.Source, b gpu.Backend, layers int) (*Encoder, error) {
	if b == nil {
		return nil, errors.New("qwen3: nil backend")
	}
	if layers < 0 || layers > cfg.NumHiddenLayers {
		return nil, fmt.Errorf("qwen3: %s: %d layers to read, the model has %d", where, layers, cfg.NumHiddenLayers)
	}
	e, err := newEncoderLayers(cfg, b, src, layers)
	if err != nil {
		return nil, fmt.Errorf("qwen3: %w", bind.Within(where, err))
	}
	e.where = where
	return e, nil
}

func newEncoderLayers(cfg Config, b gpu.Backend, ckpt weights.Source, layers int) (*Encoder, error) {
	prefix := "model." // Qwen3ForCausalLM; Qwen3Model checkpoints have no prefix
	if !ckpt.Has("model.embed_tokens.weight") && ckpt.Has("embed_tokens.weight") {
		prefix = ""
	}
	want := cfg.NumHiddenLayers
	if layers > 0 {
		want = layers
	}
	// Compare the layer count with the weights before allocating anything per layer.
	if n := ckpt.Count(prefix + "layers."); n < want {
		return nil, fmt.Errorf(`config.json field "num_hidden_layers" is %d, but the weights hold %d layers (%slayers.0 to %d)`,
			want, n, prefix, n-1)
	}
	e := &Encoder{cfg: cfg, b: b, ckpt: ckpt, readLayers: layers}
	bd := bind.New(ckpt, nil) // host views now; backend tensors on first use (Encoder.bind)
	bd.SetPrefix(prefix)
	readWeights(bd, e)
	if err := bd.Err(maxLoadErrors); err != nil {
		return nil, err
	}
	return e, nil
}

// readWeights reads every weight of e (whose cfg is set) through bd: the matrices as host
// views (Linear weights stored quantized kept packed), the vectors as float32 copies.
func readWeights(bd *bind.Binder, e *Encoder) {
	cfg := e.cfg
	e.embed = bd.Matrix("embed_tokens.weight", cfg.VocabSize, cfg.HiddenSize, false)
	n := cfg.NumHiddenLayers
	if e.readLayers > 0 {
		n = e.readLayers
	}
	e.layers = make([]decoderLayer, n)
	for i := range e.layers {
		readLayer(bd, &e.layers[i], i, cfg)
	}
	e.norm = bd.HostVector("norm.weight", cfg.HiddenSize)
}

func readLayer(bd *bind.Binder, l *decoderLayer, i int, cfg Config) {
	p := fmt.Sprintf("layers.%d.", i)
	h, q, kv, inter := cfg.HiddenSize, cfg.QDim(), cfg.KVDim(), cfg.IntermediateSize
	mats := []struct {
		name    string
		dst     *bind.Matrix
		out, in int
	}{
		{"self_attn.q_proj.weight", &l.q, q, h},
		{"self_attn.k_proj.weight", &l.k, kv, h},
		{"self_attn.v_proj.weight", &l.v, kv, h},
		{"self_attn.o_proj.weight", &l.o, h, q},
		{"mlp.gate_proj.weight", &l.gate, inter, h},
		{"mlp.up_proj.weight", &l.up, inter, h},
		{"mlp.down_proj.weight", &l.down, h, inter},
	}
	for _, m := range mats {
		*m.dst = bd.Matrix(p+m.name, m.out, m.in, true)
	}
	vecs := []struct {
		name string
		dst  *[]float32
		n    int
	}{
		{"input_layernorm.weight", &l.inputNorm, h},
		{"post_attention_layernorm.weight", &l.postNorm, h},
		{"self_attn.q_norm.weight", &l.qNorm, cfg.HeadDim},
		{"self_attn.k_norm.weight", &l.kNorm, cfg.HeadDim},
	}
	if cfg.AttentionBias {
		vecs = append(vecs, []struct {
			name string
			dst  *[]float32
			n    int
		}{
			{"self_attn.q_proj.bias", &l.qBias, q},
			{"self_attn.k_proj.bias", &l.kBias, kv},
			{"self_attn.v_proj.bias", &l.vBias, kv},
			{"self_attn.o_proj.bias", &l.oBias, h},
		}...)
	}
	for _, v := range vecs {
		*v.dst = bd.HostVector(p+v.name, v.n)
	}
}
