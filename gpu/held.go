package gpu

// Held is a set of tensors freed together, with the first error met making them: for code
// that makes several tensors, checks once, and frees them all when done (model loaders,
// measurements). The zero value needs B set before Free.
type Held struct {
	B   Backend
	all []Tensor
	// Err is the first error given to Keep.
	Err error
}

// Keep adds t to the set and returns it; given an error it records the first one and
// returns the zero Tensor.
func (h *Held) Keep(t Tensor, err error) Tensor {
	if err != nil {
		if h.Err == nil {
			h.Err = err
		}
		return Tensor{}
	}
	h.all = append(h.all, t)
	return t
}

// Len is the number of tensors held.
func (h *Held) Len() int { return len(h.all) }

// Free frees every tensor held and empties the set (Err stays).
func (h *Held) Free() {
	for _, t := range h.all {
		h.B.Free(t)
	}
	h.all = nil
}
