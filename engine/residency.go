package engine

import "kleinbild/gpu"

// deviceActivationAllowance is the device memory kept free beside the weights for
// activations and the driver: the transformer's activations and the VAE's three buffers at
// the largest size (1792², about 7.4 GB for klein-4B) with room to spare.
const deviceActivationAllowance = 8 << 30

// residentOnDevice reports whether a discrete GPU's memory (info) holds every weight of the
// model (weightBytes: text encoder, transformer and VAE) and deviceActivationAllowance at
// once. Then the text encoder stays on the device between prompts and the transformer is not
// unloaded for it: a new prompt costs its encoding compute alone. Otherwise (memory unknown,
// too small, or shared with the host as on integrated and software adapters) the encoder
// makes way for the transformer and is freed after encoding.
func residentOnDevice(info gpu.DeviceInfo, weightBytes int64) bool {
	return info.Kind == gpu.KindDiscrete && info.MemoryBytes > 0 && weightBytes > 0 &&
		weightBytes+deviceActivationAllowance <= info.MemoryBytes
}
