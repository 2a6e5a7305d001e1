/// The former name of ``PipelineBody``, which collided with OpenAPIRuntime's `HTTPBody` in a file that imports both.
@available(*, deprecated, renamed: "PipelineBody", message: "renamed PipelineBody: OpenAPIRuntime has an HTTPBody too")
public typealias HTTPBody = PipelineBody
