package webgpu

import "testing"

// FuzzTuneCache: any bytes parse to an error or a usable cache, never a panic.
func FuzzTuneCache(f *testing.F) {
	f.Add([]byte(`{"version":1,"adapter":"k","families":{"linear":{"hash":"h","variant":"v","seconds":{"v":0.1}}},"gpu_gflops":12.5}`))
	f.Add([]byte(`{"version":1,"adapter":"k","gpu_gflops":-1}`))
	f.Add([]byte(`{"version":1,"adapter":"k","attention_gflops":-3,"fma_gflops":1e12}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := ParseTuneCache(raw, "")
		if err != nil {
			return
		}
		if c.Families == nil || c.GPUGFLOPS < 0 || c.CPUGFLOPS < 0 || c.AttentionGFLOPS < 0 || c.Attention512GFLOPS < 0 ||
			c.FMAGFLOPS < 0 || c.Version != tuneCacheVersion {
			t.Fatalf("accepted an unusable cache: %+v", c)
		}
	})
}

// FuzzTuneCacheShapes: shape records are accepted only when valid.
func FuzzTuneCacheShapes(f *testing.F) {
	f.Add([]byte(`{"version":1,"adapter":"k","shapes":[{"m":512,"n":3072,"k":9216,"hash":"h","variant":"v"}]}`))
	f.Add([]byte(`{"version":1,"adapter":"k","shapes":[{"m":500,"n":3072,"k":9216,"hash":"h","variant":"v"}]}`))
	f.Add([]byte(`{"version":1,"adapter":"k","shapes":[{"m":512,"n":-1,"k":0,"variant":""}]}`))
	f.Add([]byte(`{"version":1,"adapter":"k","shapes":null}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := ParseTuneCache(raw, "")
		if err != nil {
			return
		}
		if !validShapes(c.Shapes) {
			t.Fatalf("accepted invalid shape records: %+v", c.Shapes)
		}
		for _, s := range c.Shapes {
			if s.M <= 0 || s.N <= 0 || s.K <= 0 || shapeBucket(s.M) != s.M || s.Variant == "" {
				t.Fatalf("accepted shape record %+v", s)
			}
		}
	})
}
