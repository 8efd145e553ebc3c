package randmodel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"kleinbild/internal/atomicfile"
	"kleinbild/weights"
)

// tensorPlan is one tensor of a file to write.
type tensorPlan struct {
	name  string
	shape []int
	dtype weights.DType // BF16, or I64 for bn.num_batches_tracked
	rule  rule
	key   uint64 // generator key (tensorSeed)
	numel int64
}

func (t *tensorPlan) bytes() int64 { return t.numel * int64(t.dtype.Size()) }

// filePlan is one safetensors file: its tensors in storage order and its header.
type filePlan struct {
	rel     string // path relative to the model folder, with forward slashes
	tensors []tensorPlan
	header  []byte // length prefix + JSON header, padded to a multiple of 8
}

// dataBytes is the size of the data section.
func (f *filePlan) dataBytes() int64 {
	var n int64
	for i := range f.tensors {
		n += f.tensors[i].bytes()
	}
	return n
}

// size is the size of the whole file.
func (f *filePlan) size() int64 { return int64(len(f.header)) + f.dataBytes() }

// newTensor plans a tensor; the generator key is derived from the seed and the tensor's
// path (component folder + name), so it does not depend on sharding or storage order.
func newTensor(seed uint64, component, name string, shape []int) tensorPlan {
	t := tensorPlan{name: name, shape: shape, dtype: weights.BF16, rule: ruleFor(name, shape),
		key: tensorSeed(seed, component+"/"+name), numel: 1}
	if t.rule.kind == ruleConstI64 {
		t.dtype = weights.I64
	}
	for _, d := range shape {
		t.numel *= int64(d)
	}
	return t
}

// newFile orders tensors as the safetensors library stores them (larger dtypes first, then by
// name) and builds the header: {"__metadata__":{"format":"pt"}, name: {dtype, shape,
// data_offsets}, ...} in storage order, space-padded so that the data is 8-byte aligned.
func newFile(rel string, tensors []tensorPlan) (*filePlan, error) {
	ts := slices.Clone(tensors)
	slices.SortFunc(ts, func(a, b tensorPlan) int {
		if a.dtype.Size() != b.dtype.Size() {
			return b.dtype.Size() - a.dtype.Size()
		}
		return strings.Compare(a.name, b.name)
	})
	var h bytes.Buffer
	h.WriteString(`{"__metadata__":{"format":"pt"}`)
	var off int64
	for i, t := range ts {
		if i > 0 && ts[i-1].name == t.name {
			return nil, fmt.Errorf("%s: duplicate tensor %q", rel, t.name)
		}
		name, err := json.Marshal(t.name)
		if err != nil {
			return nil, fmt.Errorf("%s: tensor name %q: %w", rel, t.name, err)
		}
		shape, _ := json.Marshal(append([]int{}, t.shape...)) // [] for scalars, never null
		fmt.Fprintf(&h, `,%s:{"dtype":"%s","shape":%s,"data_offsets":[%d,%d]}`, name, t.dtype, shape, off, off+t.bytes())
		off += t.bytes()
	}
	h.WriteByte('}')
	for h.Len()%8 != 0 {
		h.WriteByte(' ')
	}
	header := make([]byte, 8, 8+h.Len())
	binary.LittleEndian.PutUint64(header, uint64(h.Len()))
	return &filePlan{rel: rel, tensors: ts, header: append(header, h.Bytes()...)}, nil
}

// chunkElems is how many elements one generation task covers (4 MiB of bf16): large enough
// that task overhead vanishes, small enough that the in-flight buffers stay small.
const chunkElems = 1 << 21

// chunk is one generation task: a range of one tensor, filled by a worker and written in
// file order.
type chunk struct {
	t      *tensorPlan
	lo, hi int64
	buf    []byte
	done   chan struct{}
}

func (c *chunk) fill() {
	switch c.t.dtype {
	case weights.I64:
		fillI64(c.buf, c.t.rule, c.lo, c.hi)
	default:
		fillBF16(c.buf, c.t.key, c.t.rule, c.lo, c.hi)
	}
}

// writeData streams the file's tensors to w: workers fill chunks in parallel, and they are
// written strictly in order, with a bounded number of buffers in flight. progress, if non-nil,
// is called with the bytes of each written chunk.
func (f *filePlan) writeData(ctx context.Context, w io.Writer, workers int, progress func(n int64)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)

	inFlight := 2*workers + 2
	free := make(chan []byte, inFlight)
	for range inFlight {
		free <- make([]byte, chunkElems*8) // room for the widest dtype
	}
	jobs := make(chan *chunk)
	order := make(chan *chunk, inFlight)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				c.fill()
				close(c.done)
			}
		}()
	}
	defer func() { // on every return: stop the producer, then let the workers drain and exit
		cancel()
		wg.Wait()
	}()

	go func() { // producer: chunks in file order
		defer close(jobs)
		defer close(order)
		for i := range f.tensors {
			t := &f.tensors[i]
			for lo := int64(0); lo < t.numel; lo += chunkElems {
				hi := min(lo+chunkElems, t.numel)
				var buf []byte
				select {
				case buf = <-free:
				case <-ctx.Done():
					return
				}
				c := &chunk{t: t, lo: lo, hi: hi, buf: buf[:(hi-lo)*int64(t.dtype.Size())], done: make(chan struct{})}
				select {
				case jobs <- c:
				case <-ctx.Done():
					return
				}
				order <- c // cannot block: at most inFlight buffers exist
			}
		}
	}()

	for c := range order {
		select {
		case <-c.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		if _, err := w.Write(c.buf); err != nil {
			return err
		}
		if progress != nil {
			progress(int64(len(c.buf)))
		}
		free <- c.buf[:cap(c.buf)]
	}
	return ctx.Err()
}

// write creates the file at path atomically (a temporary file, then a rename).
func (f *filePlan) write(ctx context.Context, path string, workers int, progress func(n int64)) error {
	return atomicfile.WriteAtomic(path, func(w *bufio.Writer) error {
		if _, err := w.Write(f.header); err != nil {
			return err
		}
		return f.writeData(ctx, w, workers, progress)
	})
}
