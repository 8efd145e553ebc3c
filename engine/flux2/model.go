// Package flux2 is the FLUX.2 diffusion transformer (diffusers Flux2Transformer2DModel) as
// FLUX.2-klein uses it: double-stream blocks with separate text and image weights, then
// single-stream (parallel attention + SwiGLU) blocks over the joint [text; image] sequence,
// modulated by one shared set of timestep-derived shift/scale/gate vectors per block kind,
// with 4-axis interleaved rotary position embeddings.
//
// Every operation runs on a gpu.Backend. On a CPU backend the weights stay in the
// memory-mapped checkpoint (bf16, zero-copy) and are read block by block during Forward; a
// device backend holds copies.
package flux2

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"kleinbild/engine/bind"
	"kleinbild/engine/lora"
	"kleinbild/gpu"
	"kleinbild/weights"
)

// Model is a loaded FLUX.2 transformer. Forward may be called repeatedly; calls are
// serialised by the caller (a backend runs one generation at a time). Close must not race
// with Forward (it waits for a running Forward to finish).
type Model struct {
	cfg Config
	b   gpu.Backend

	mu      sync.RWMutex // Forward holds it shared, Close exclusively
	ckpt    weights.Source
	weights gpu.Held // every weight tensor, freed by Close

	xEmbed, ctxEmbed         gpu.Tensor
	timeLin1, timeLin2       gpu.Tensor
	modImg, modTxt, modSingl gpu.Tensor
	normOut, projOut         gpu.Tensor
	double                   []doubleBlock
	single                   []singleBlock

	ad *lora.Runtime // adapters applied at run time (nil: none)

	actMu sync.Mutex
	act   *[numBuffers]gpu.Tensor // activation tensors kept between Forward calls (nil: none)

	// trace, when set (tests), receives intermediate activations under the names of the
	// reference's forward hooks, read back from the backend. The slices are only valid
	// during the call.
	trace func(name string, v []float32)
	// mark, when set (benchmarks), is called with the same names without reading anything.
	mark func(name string)
}

type doubleBlock struct {
	prefix                         string     // "transformer_blocks.N." (adapter module names)
	toQ, toK, toV, toOut           gpu.Tensor // image stream attention
	addQ, addK, addV, toAddOut     gpu.Tensor // text stream attention
	ffIn, ffOut, ffCtxIn, ffCtxOut gpu.Tensor
	normQ, normK                   gpu.Tensor // per-head RMSNorm weights [headDim], image
	normAddQ, normAddK             gpu.Tensor // text
}

type singleBlock struct {
	prefix       string     // "single_transformer_blocks.N."
	qkvMLP, out  gpu.Tensor // to_qkv_mlp_proj [3·hidden + 2·mlp, hidden], to_out [hidden, hidden + mlp]
	normQ, normK gpu.Tensor
}

// Load opens the transformer folder dir (config.json plus the safetensors file(s)), checks
// every tensor's presence, dtype and shape, and makes them weight tensors of b: views of the
// memory-mapped checkpoint on a CPU backend, copies on a device backend.
func Load(dir string, b gpu.Backend) (*Model, error) {
	if b == nil {
		return nil, errors.New("flux2: nil gpu.Backend")
	}
	cfg, err := LoadConfig(filepath.Join(dir, "config.json"))
	if err != nil {
		return nil, err
	}
	ckpt, err := weights.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("flux2: %w", err)
	}
	m, err := LoadFrom(dir, cfg, ckpt, b)
	if err != nil {
		ckpt.Close()
		return nil, err
	}
	return m, nil
}

// LoadFrom binds the transformer cfg describes to the tensors of src, checked as by Load;
// where names src in errors. The model owns src from then on (Close closes it); on error
// the caller still does.
func LoadFrom(where string, cfg Config, src weights.Source, b gpu.Backend) (*Model, error) {
	if b == nil {
		return nil, errors.New("flux2: nil gpu.Backend")
	}
	m := &Model{cfg: cfg, b: b, ckpt: src}
	if err := m.bind(); err != nil {
		m.freeWeights()
		return nil, fmt.Errorf("flux2: %w", bind.Within(where, err))
	}
	return m, nil
}

// TensorSpec is the name and shape of one tensor a transformer checkpoint must hold.
type TensorSpec = weights.TensorSpec

// TensorSpecs lists every tensor Load reads for cfg (bf16 in the real checkpoints), in load
// order. It is the list Load checks: both come from the same binding code.
func TensorSpecs(cfg Config) []TensorSpec {
	b := bind.Record()
	(&Model{cfg: cfg}).bindTensors(b)
	return b.Specs()
}

var blockIndex = regexp.MustCompile(`^(transformer_blocks|single_transformer_blocks)\.(\d+)\.`)

func (m *Model) bind() error {
	c := m.cfg
	// Compare the block counts with the weights before binding anything per block.
	for _, stack := range []struct {
		field, prefix string
		n             int
	}{{"num_layers", "transformer_blocks.", c.NumLayers}, {"num_single_layers", "single_transformer_blocks.", c.NumSingleLayers}} {
		if have := m.ckpt.Count(stack.prefix); have < stack.n {
			return fmt.Errorf("config.json field %q is %d, but the weights hold %d %s", stack.field, stack.n, have, strings.TrimSuffix(stack.prefix, "."))
		}
	}
	b := bind.New(m.ckpt, m.b)
	m.bindTensors(b)
	m.weights = b.Made()

	// Blocks beyond the configured counts mean config.json does not describe these weights.
	for _, name := range m.ckpt.Names() {
		g := blockIndex.FindStringSubmatch(name)
		if g == nil {
			continue
		}
		i, err := strconv.Atoi(g[2])
		limit := c.NumLayers
		if g[1] == "single_transformer_blocks" {
			limit = c.NumSingleLayers
		}
		if err != nil || i >= limit {
			b.Fail(fmt.Errorf("tensor %q is beyond the %d %s of config.json", name, limit, g[1]))
			break
		}
	}

	const maxReported = 8
	return b.Err(maxReported)
}

// bindTensors binds every weight of the model through b (or, without a checkpoint, only
// records their names and shapes).
func (m *Model) bindTensors(b *bind.Binder) {
	c := m.cfg
	d, mlp, hd := c.Hidden(), c.MLPHidden(), c.AttentionHeadDim

	m.xEmbed = b.Linear("x_embedder.weight", d, c.InChannels)
	m.ctxEmbed = b.Linear("context_embedder.weight", d, c.JointAttentionDim)
	m.timeLin1 = b.Linear("time_guidance_embed.timestep_embedder.linear_1.weight", d, c.TimestepGuidanceChannels)
	m.timeLin2 = b.Linear("time_guidance_embed.timestep_embedder.linear_2.weight", d, d)
	m.modImg = b.Linear("double_stream_modulation_img.linear.weight", 6*d, d)
	m.modTxt = b.Linear("double_stream_modulation_txt.linear.weight", 6*d, d)
	m.modSingl = b.Linear("single_stream_modulation.linear.weight", 3*d, d)
	m.normOut = b.Linear("norm_out.linear.weight", 2*d, d)
	m.projOut = b.Linear("proj_out.weight", c.OutChannels, d)

	m.double = make([]doubleBlock, c.NumLayers)
	for i := range m.double {
		p := fmt.Sprintf("transformer_blocks.%d.", i)
		m.double[i] = doubleBlock{
			prefix:   p,
			toQ:      b.Linear(p+"attn.to_q.weight", d, d),
			toK:      b.Linear(p+"attn.to_k.weight", d, d),
			toV:      b.Linear(p+"attn.to_v.weight", d, d),
			toOut:    b.Linear(p+"attn.to_out.0.weight", d, d),
			addQ:     b.Linear(p+"attn.add_q_proj.weight", d, d),
			addK:     b.Linear(p+"attn.add_k_proj.weight", d, d),
			addV:     b.Linear(p+"attn.add_v_proj.weight", d, d),
			toAddOut: b.Linear(p+"attn.to_add_out.weight", d, d),
			ffIn:     b.Linear(p+"ff.linear_in.weight", 2*mlp, d),
			ffOut:    b.Linear(p+"ff.linear_out.weight", d, mlp),
			ffCtxIn:  b.Linear(p+"ff_context.linear_in.weight", 2*mlp, d),
			ffCtxOut: b.Linear(p+"ff_context.linear_out.weight", d, mlp),
			normQ:    b.Vector(p+"attn.norm_q.weight", hd),
			normK:    b.Vector(p+"attn.norm_k.weight", hd),
			normAddQ: b.Vector(p+"attn.norm_added_q.weight", hd),
			normAddK: b.Vector(p+"attn.norm_added_k.weight", hd),
		}
	}
	m.single = make([]singleBlock, c.NumSingleLayers)
	for i := range m.single {
		p := fmt.Sprintf("single_transformer_blocks.%d.", i)
		m.single[i] = singleBlock{
			prefix: p,
			qkvMLP: b.Linear(p+"attn.to_qkv_mlp_proj.weight", 3*d+2*mlp, d),
			out:    b.Linear(p+"attn.to_out.weight", d, d+mlp),
			normQ:  b.Vector(p+"attn.norm_q.weight", hd),
			normK:  b.Vector(p+"attn.norm_k.weight", hd),
		}
	}
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.cfg }

// Release frees the activation tensors kept between Forward calls and drops the mapped
// weight pages from memory (they are read again from disk when Forward next runs on a CPU
// backend). Weight tensors a device backend copied stay resident until Close. The model
// stays usable.
func (m *Model) Release() {
	m.actMu.Lock()
	m.freeActivations(m.act)
	m.act = nil
	m.actMu.Unlock()
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.ckpt != nil {
		m.ckpt.Release()
	}
}

// Close frees the weight and activation tensors and unmaps the checkpoint. Forward
// afterwards returns an error. Closing twice is harmless.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.actMu.Lock()
	m.freeActivations(m.act)
	m.act = nil
	m.actMu.Unlock()
	if m.ckpt == nil {
		return nil
	}
	m.freeWeights()
	m.ad.Close()
	m.ad = nil
	err := m.ckpt.Close()
	m.ckpt = nil
	m.double, m.single = nil, nil
	if err != nil {
		return fmt.Errorf("flux2: close: %w", err)
	}
	return nil
}

// freeWeights frees every weight tensor.
func (m *Model) freeWeights() {
	m.weights.Free()
}

// activations returns F32 tensors of at least sizes[i] elements each, reusing those kept
// from the previous Forward that are large enough. Their contents are arbitrary. On error
// none stays allocated.
func (m *Model) activations(sizes [numBuffers]int) (*[numBuffers]gpu.Tensor, error) {
	m.actMu.Lock()
	act := m.act
	m.act = nil
	m.actMu.Unlock()
	if act == nil {
		act = new([numBuffers]gpu.Tensor)
	}
	for i, z := range sizes {
		z = max(z, 1)
		if act[i].Len() >= z {
			continue
		}
		m.b.Free(act[i])
		t, err := m.b.Alloc(gpu.F32, z)
		if err != nil {
			act[i] = gpu.Tensor{}
			m.freeActivations(act)
			return nil, err
		}
		act[i] = t
	}
	return act, nil
}

// keep stores act for the next Forward (freeing the smaller of act and the set kept).
func (m *Model) keep(act *[numBuffers]gpu.Tensor) {
	m.actMu.Lock()
	defer m.actMu.Unlock()
	if activationElems(act) > activationElems(m.act) {
		act, m.act = m.act, act
	}
	m.freeActivations(act)
}

// freeActivations frees the tensors of act (nil: none).
func (m *Model) freeActivations(act *[numBuffers]gpu.Tensor) {
	if act == nil {
		return
	}
	for i := range act {
		m.b.Free(act[i])
		act[i] = gpu.Tensor{}
	}
}

// activationElems is the total length of the tensors of act (nil: 0).
func activationElems(act *[numBuffers]gpu.Tensor) int {
	if act == nil {
		return 0
	}
	n := 0
	for _, t := range act {
		n += t.Len()
	}
	return n
}
