package qwen3

import (
	"errors"
	"fmt"
	"path/filepath"

	"kleinbild/gpu"
	"kleinbild/gpu/quant"
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
		return nil, fmt.Errorf("qwen3: %s: %w", where, err)
	}
	return e, nil
}

// TensorSpec is the name and shape of one tensor a text encoder checkpoint must hold.
type TensorSpec = weights.TensorSpec

// TensorSpecs lists every tensor Load reads for cfg, with the Qwen3ForCausalLM names of the
// real checkpoints ("model." prefix; the tied lm_head is not read), in model order: the
// embedding, the decoder layers, the final norm. It is the list Load checks: both come from
// the same binding code.
func TensorSpecs(cfg Config) []TensorSpec {
	var specs []TensorSpec
	ld := tensorLoader{prefix: "model.", record: &specs}
	_ = ld.bind(&Encoder{cfg: cfg}) // recording never fails
	return specs
}

// tensorLoader reads the encoder's tensors from a checkpoint, checking shapes and dtypes.
// With record set it reads nothing and only lists the tensors asked for.
type tensorLoader struct {
	ckpt   weights.Source
	prefix string // "model." for Qwen3ForCausalLM checkpoints, "" for Qwen3Model
	record *[]TensorSpec
}

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
		return nil, fmt.Errorf("qwen3: %s: %w", where, err)
	}
	return e, nil
}

func newEncoderLayers(cfg Config, b gpu.Backend, ckpt weights.Source, layers int) (*Encoder, error) {
	ld := tensorLoader{ckpt: ckpt, prefix: "model."}
	if !ckpt.Has("model.embed_tokens.weight") && ckpt.Has("embed_tokens.weight") {
		ld.prefix = ""
	}
	want := cfg.NumHiddenLayers
	if layers > 0 {
		want = layers
	}
	// Compare the layer count with the weights before allocating anything per layer.
	if n := ckpt.Count(ld.prefix + "layers."); n < want {
		return nil, fmt.Errorf(`config.json field "num_hidden_layers" is %d, but the weights hold %d layers (%slayers.0 to %d)`,
			want, n, ld.prefix, n-1)
	}
	e := &Encoder{cfg: cfg, b: b, ckpt: ckpt, readLayers: layers}
	if err := ld.bind(e); err != nil {
		return nil, err
	}
	return e, nil
}

// bind loads every weight of e (whose cfg is set), stopping at the first problem.
func (ld tensorLoader) bind(e *Encoder) error {
	cfg := e.cfg
	var err error
	if e.embed, err = ld.matrix("embed_tokens.weight", cfg.VocabSize, cfg.HiddenSize, false); err != nil {
		return err
	}
	n := cfg.NumHiddenLayers
	if e.readLayers > 0 {
		n = e.readLayers
	}
	e.layers = make([]decoderLayer, n)
	for i := range e.layers {
		if err := ld.layer(&e.layers[i], i, cfg); err != nil {
			return err
		}
	}
	if e.norm, err = ld.vector("norm.weight", cfg.HiddenSize); err != nil {
		return err
	}
	return nil
}

func (ld tensorLoader) layer(l *decoderLayer, i int, cfg Config) error {
	p := fmt.Sprintf("layers.%d.", i)
	h, q, kv, inter := cfg.HiddenSize, cfg.QDim(), cfg.KVDim(), cfg.IntermediateSize
	mats := []struct {
		name    string
		dst     *matrix
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
		w, err := ld.matrix(p+m.name, m.out, m.in, true)
		if err != nil {
			return err
		}
		*m.dst = w
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
		x, err := ld.vector(p+v.name, v.n)
		if err != nil {
			return err
		}
		*v.dst = x
	}
	return nil
}

// matrix returns a [out, in] weight as a zero-copy view (bf16 or f32), or for a Linear
// weight (linear) stored quantized, the packed tensor.
func (ld tensorLoader) matrix(name string, out, in int, linear bool) (matrix, error) {
	if ld.record != nil {
		*ld.record = append(*ld.record, TensorSpec{Name: ld.prefix + name, Shape: []int{out, in}})
		return matrix{}, nil
	}
	t, err := ld.ckpt.TensorShape(ld.prefix+name, out, in)
	if err != nil {
		return matrix{}, err
	}
	w := matrix{out: out, in: in}
	if q := t.Quantized(); q != nil && (linear || rowsDecodable(q, in)) {
		w.packed = t // an embedding table stays packed too: embedRow decodes the rows it looks up
		return w, nil
	}
	switch t.DType {
	case weights.BF16:
		w.bf16, err = t.BF16()
	case weights.F32:
		w.f32, err = t.Float32()
	default:
		err = fmt.Errorf("%s: tensor %q is %s, want BF16 or F32", t.File, t.Name, t.DType)
	}
	return w, err
}

// vector returns a 1-D tensor of n elements converted to float32.
func (ld tensorLoader) vector(name string, n int) ([]float32, error) {
	if ld.record != nil {
		*ld.record = append(*ld.record, TensorSpec{Name: ld.prefix + name, Shape: []int{n}})
		return nil, nil
	}
	t, err := ld.ckpt.TensorShape(ld.prefix+name, n)
	if err != nil {
		return nil, err
	}
	v, err := t.Float32()
	if err != nil {
		return nil, err
	}
	// Own the values: F32 tensors come back as views into the mapping, which Close unmaps.
	return append([]float32(nil), v...), nil
}

// rowsDecodable reports whether each row of in elements of q is whole blocks of a type
// package gpu/quant decodes, so that rows can be decoded one at a time.
func rowsDecodable(q *weights.Quant, in int) bool {
	dt, ok := gpu.QuantByName(q.Type)
	be, _ := dt.Block()
	return ok && be > 0 && in%be == 0 && quant.Decoder(dt) != nil
}
