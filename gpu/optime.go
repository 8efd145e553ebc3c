package gpu

// OpTime is the GPU time of one op's dispatches over a profiled stretch: the backends that
// time their dispatches with timestamp queries (webgpu, vulkan: StartProfile, TakeProfile)
// report it per gpu.Backend method ("Linear", "Attention", ...).
type OpTime struct {
	Op         string  `json:"op"`
	Seconds    float64 `json:"seconds"`
	Dispatches int     `json:"dispatches"`
}
