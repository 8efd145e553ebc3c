package app

import "kleinbild/estimate"

// warmupSeconds is the time the first image after the model opens (p plans its loading)
// is expected to spend warming up, beyond its phases: the first denoising step compiles the
// kernels and allocates the buffers (it measured 15 s of a 39 s run, each later step 3 s),
// and the first decode does the same. The prior is one more image's denoising and decoding,
// so that neither the fit line nor the time left promises too short a first image (issue 36
// item 9: 1024×576 was estimated at 21 s and took 46–48 s). Once the image runs, its
// measured pace takes over. A loaded model plans none.
func warmupSeconds(p estimate.Phases) float64 {
	if p.Load <= 0 {
		return 0
	}
	return p.Denoise + p.Decode
}
