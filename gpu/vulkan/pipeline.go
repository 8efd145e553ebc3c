//go:build cgo && (linux || windows) && (amd64 || arm64)

package vulkan

import (
	"embed"
	"encoding/binary"
	"fmt"
)

// spirv holds the compiled kernels (make shaders: glslc shaders/X.comp -o shaders/X.spv).
//
//go:embed shaders/*.spv
var spirv embed.FS

// kernels maps each kernel to its number of storage-buffer bindings (0, 1, ... in the shader).
var kernels = map[string]int{
	"elementwise":  3,
	"layout":       4,
	"norm":         4,
	"linear":       4,
	"linear128":    4,
	"linearv":      4,
	"linearvi":     4,
	"linearq":      4,
	"linearsmall":  4,
	"linearsmallq": 4,
	"attention":    4,
	"conv":         4,
	"rowscale":     2,
	"linearf16":    5,
	"linearcm":     5,
	"attnflash32":  4,
	"attnflash128": 4,
	"attnflash512": 4,
	"normsg":       4,
	"convf16":      5,
	"convcm":       5,
	"attnf16":      4,
	"attncm":       4,
}

// pipeline is a compute pipeline with its layouts.
type pipeline struct {
	name        string
	nBind       int
	module      uint64
	dsl, layout uint64
	pipe        uint64
}

// pipeline returns the pipeline of kernel name, creating it on first use.
func (b *Backend) pipeline(name string) (*pipeline, error) {
	if p := b.pipes[name]; p != nil {
		return p, nil
	}
	nBind, ok := kernels[name]
	if !ok {
		return nil, fmt.Errorf("vulkan: no kernel %q", name)
	}
	code, err := spirv.ReadFile("shaders/" + name + ".spv")
	if err != nil || len(code)%4 != 0 || len(code) == 0 {
		return nil, fmt.Errorf("vulkan: kernel %s: no SPIR-V embedded (run make shaders): %v", name, err)
	}
	words := make([]uint32, len(code)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(code[4*i:])
	}
	if words, err = b.kernelSPIRV(words); err != nil {
		return nil, fmt.Errorf("vulkan: kernel %s: %w", name, err)
	}
	p := &pipeline{name: name, nBind: nBind}
	if err := b.createPipeline(p, words, b.specialize(name)); err != nil {
		b.destroyPipeline(p)
		return nil, fmt.Errorf("vulkan: kernel %s: %w", name, err)
	}
	b.pipes[name] = p
	return p, nil
}

// specialize returns the values of kernel name's specialization constants 0, 1, ... (none
// but the matrix-unit kernels': the matrix shape and the workgroup size, four subgroups).
func (b *Backend) specialize(name string) []uint32 {
	if !unitKernels[name] || b.units == nil {
		return nil
	}
	u := b.units
	return []uint32{u.m, u.n, u.k, 4 * u.subgroup}
}

// specInfo returns a pinned VkSpecializationInfo of 32-bit constants 0, 1, ... = vals (0
// for none).
func specInfo(ps *pins, vals []uint32) uintptr {
	if len(vals) == 0 {
		return 0
	}
	data := append([]uint32(nil), vals...)
	entries := make([]specMapEntry, len(vals))
	for i := range entries {
		entries[i] = specMapEntry{constantID: uint32(i), offset: uint32(4 * i), size: 4}
	}
	return ptr(ps, &specializationInfo{mapEntryCount: uint32(len(vals)), pMapEntries: ptr(ps, &entries[0]),
		dataSize: uintptr(4 * len(vals)), pData: ptr(ps, &data[0])})
}

func (b *Backend) createPipeline(p *pipeline, words []uint32, spec []uint32) error {
	var ps pins
	defer ps.p.Unpin()
	f := b.f
	mi := &shaderModuleCreateInfo{sType: stShaderModuleCreateInfo, codeSize: uintptr(4 * len(words)), pCode: ptr(&ps, &words[0])}
	if err := result("vkCreateShaderModule", f.createShaderModule, b.dev, ptr(&ps, mi), 0, ptr(&ps, &p.module)); err != nil {
		return err
	}
	binds := make([]descriptorSetLayoutBinding, p.nBind)
	for i := range binds {
		binds[i] = descriptorSetLayoutBinding{binding: uint32(i), descriptorType: descStorageBuffer, descriptorCount: 1, stageFlags: stageCompute}
	}
	li := &descriptorSetLayoutCreateInfo{sType: stDescriptorSetLayoutCrt, bindingCount: uint32(p.nBind), pBindings: ptr(&ps, &binds[0])}
	if err := result("vkCreateDescriptorSetLayout", f.createDescriptorSetLayout, b.dev, ptr(&ps, li), 0, ptr(&ps, &p.dsl)); err != nil {
		return err
	}
	pr := &pushConstantRange{stageFlags: stageCompute, size: pushBytes}
	dsl := new(uint64)
	*dsl = p.dsl
	pli := &pipelineLayoutCreateInfo{sType: stPipelineLayoutCreate, setLayoutCount: 1, pSetLayouts: ptr(&ps, dsl), pushConstantRangeCount: 1, pPushConstantRanges: ptr(&ps, pr)}
	if err := result("vkCreatePipelineLayout", f.createPipelineLayout, b.dev, ptr(&ps, pli), 0, ptr(&ps, &p.layout)); err != nil {
		return err
	}
	ci := &computePipelineCreateInfo{sType: stComputePipelineCreate, layout: p.layout, basePipelineIndex: -1,
		stage: pipelineShaderStageCreateInfo{sType: stPipelineShaderStage, stage: stageCompute, module: p.module, pName: cstr(&ps, "main"), pSpecializationInfo: specInfo(&ps, spec)}}
	return result("vkCreateComputePipelines", f.createComputePipelines, b.dev, 0, 1, ptr(&ps, ci), 0, ptr(&ps, &p.pipe))
}

func (b *Backend) destroyPipeline(p *pipeline) {
	f := b.f
	if p.pipe != 0 {
		vkcall(f.destroyPipeline, b.dev, uintptr(p.pipe), 0)
	}
	if p.layout != 0 {
		vkcall(f.destroyPipelineLayout, b.dev, uintptr(p.layout), 0)
	}
	if p.dsl != 0 {
		vkcall(f.destroyDescriptorSetLayout, b.dev, uintptr(p.dsl), 0)
	}
	if p.module != 0 {
		vkcall(f.destroyShaderModule, b.dev, uintptr(p.module), 0)
	}
}
