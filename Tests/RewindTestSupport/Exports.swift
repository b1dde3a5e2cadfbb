// Engine-level tests use the seeds' example machines throughout: importing the support gives them.
@_exported import RewindExamples
