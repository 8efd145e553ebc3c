package app

import "kleinbild/app/jobs"

// Limits of the images-per-run setting.
const (
	minCount = jobs.MinCount
	maxCount = jobs.MaxCount
)

// job is one generation waiting or running (package jobs).
type job = jobs.Job
