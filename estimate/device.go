package estimate

import (
	"fmt"

	"kleinbild/engine"
	"kleinbild/gpu"
)

// DeviceBuffers are the largest single buffer a generation allocates on a device and the
// widest range one kernel operand binds, with what they hold. A GPU has limits on both
// (gpu.DeviceInfo.MaxBufferBytes, MaxBindingBytes) besides its memory.
type DeviceBuffers struct {
	Buffer, Binding         int64
	BufferWhat, BindingWhat string
}

// Buffers sizes the device buffers of req on m: the transformer's largest activation tensor
// (flux2.Config.ForwardLargestActivation: the fused projection, tokens × (3·hidden + 2·mlp)
// values, also its widest operand), the VAE's rotating buffers at the output size and the
// references' sizes, and the text encoder's widest activation. Weights are split into
// chunks of whole rows and never limit.
func Buffers(m Model, req Request) (DeviceBuffers, error) {
	p, err := plan(m, req)
	if err != nil {
		return DeviceBuffers{}, err
	}
	return buffersOf(m, req, p), nil
}

// buffersOf is Buffers for req planned as p.
func buffersOf(m Model, req Request, p engine.Plan) DeviceBuffers {
	tc, qc, vc := m.Transformer, m.Encoder, m.VAE
	tokens := TextTokens + p.ImageTokens() + p.RefTokens()
	d := DeviceBuffers{
		Buffer:      int64(tc.ForwardLargestActivation(tokens)) * f32,
		BufferWhat:  "the transformer's fused projection",
		Binding:     int64(tokens) * int64(3*tc.Hidden()+2*tc.MLPHidden()) * f32,
		BindingWhat: "the transformer's fused projection",
	}
	more := func(n int64, what string) {
		if n > d.Buffer {
			d.Buffer, d.BufferWhat = n, what
		}
	}
	s := vc.ScaleFactor()
	more(vaeDecode(vc, p.HeightPx/s, p.WidthPx/s).maxBuf*f32, "the VAE decoder's activations")
	for _, r := range p.Refs {
		more(vaeEncode(vc, r.Y, r.X).maxBuf*f32, "the VAE encoder's activations")
	}
	if !req.PromptCached {
		more(int64(TextTokens)*int64(max(qc.HiddenSize, qc.QDim(), qc.IntermediateSize))*f32, "the text encoder's activations")
	}
	return d
}

// CheckDevice returns an error, before anything runs, when a buffer of req on m exceeds the
// limits of the device info (a limit of 0 is none): the largest buffer against
// MaxBufferBytes, the widest operand against MaxBindingBytes. CPU devices have neither.
func CheckDevice(m Model, req Request, info gpu.DeviceInfo) error {
	if info.Kind == gpu.KindCPU || (info.MaxBufferBytes <= 0 && info.MaxBindingBytes <= 0) {
		return nil
	}
	p, err := plan(m, req)
	if err != nil {
		return err
	}
	d := buffersOf(m, req, p)
	fit := &FitError{Width: p.WidthPx, Height: p.HeightPx, Device: info.Name}
	switch {
	case info.MaxBufferBytes > 0 && d.Buffer > info.MaxBufferBytes:
		fit.Need, fit.Limit, fit.What = d.Buffer, info.MaxBufferBytes, d.BufferWhat
	case info.MaxBindingBytes > 0 && d.Binding > info.MaxBindingBytes:
		fit.Need, fit.Limit, fit.What, fit.Binding = d.Binding, info.MaxBindingBytes, d.BindingWhat, true
	default:
		return nil
	}
	return fit
}

// FitError is a request that does not fit a device's limits (CheckDevice): at Width×Height
// px it needs Need bytes of What in one buffer (or, with Binding, bound to one kernel),
// where Device allows Limit. Error words it with the advice to choose a smaller size or
// the CPU; Problem without.
type FitError struct {
	Width, Height int
	Need, Limit   int64
	What, Device  string
	Binding       bool
}

// Problem says what does not fit, without advice.
func (e *FitError) Problem() string {
	size := fmt.Sprintf("%d×%d px", e.Width, e.Height)
	if e.Binding {
		return fmt.Sprintf("%s binds %s of %s to one kernel; %s allows at most %s per binding", size, mb(e.Need), e.What, e.Device, mb(e.Limit))
	}
	return fmt.Sprintf("%s needs one buffer of %s for %s; %s allows at most %s per buffer", size, mb(e.Need), e.What, e.Device, mb(e.Limit))
}

func (e *FitError) Error() string { return e.Problem() + ": choose a smaller size or the CPU" }

// mb formats bytes as mebibytes with one decimal ("289.7 MB", as the WebGPU backend says).
func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }
