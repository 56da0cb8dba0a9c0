package generator

// ScratchTreeForTest and RestoreFileForTest are scratchTree and restoreFile, for the external
// tests of the package (package generator_test).
var (
	ScratchTreeForTest = scratchTree
	RestoreFileForTest = restoreFile
)
