// The engine's tests use the support of every layer below and the seeds' example machines
// throughout: importing the engine's support gives them all.
@_exported import RewindBaseTestSupport
@_exported import RewindExamples
@_exported import RewindMachineTestSupport
