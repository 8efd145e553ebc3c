package weights

// Source is what a model loader reads its tensors from: the lookups by name that binding a
// model's weights makes, plus the release of the memory behind them. *Checkpoint (one
// safetensors file, or shards with an index) implements it; other stores of weights (a GGUF
// file, one component of a single-file checkpoint, a checkpoint with a LoRA adapter applied)
// implement it too, so that the loaders of engine/qwen3, engine/flux2 and engine/vae read any
// of them unchanged.
type Source interface {
	// Names lists every tensor, sorted.
	Names() []string
	// Has reports whether the named tensor exists.
	Has(name string) bool
	// Count is the number of distinct numbered blocks under prefix ("layers." -> how many
	// "layers.N." exist).
	Count(prefix string) int
	// Tensor returns the named tensor.
	Tensor(name string) (*Tensor, error)
	// TensorShape returns the named tensor after checking its shape.
	TensorShape(name string, shape ...int) (*Tensor, error)
	// MappedBytes is the size of the data behind the tensors.
	MappedBytes() int64
	// Release drops the tensors' pages from memory; they are read again when used.
	Release()
	// Close releases everything; tensors must not be used afterwards.
	Close() error
}

var _ Source = (*Checkpoint)(nil)
