/// Builds an array of interceptors with Swift's result-builder syntax, allowing `if`, `if`/`else` and `for`.
///
/// ```swift
/// let pipeline = Pipeline(transport: transport) {
///     CachePolicyInterceptor()
///     if verbose { MyLoggingInterceptor() }
///     RevalidationInterceptor()
///     StorageDecisionInterceptor()
/// }
/// ```
@resultBuilder
public enum InterceptorBuilder {
    /// Collects the statements of a block.
    /// - Parameter components: Each statement's interceptors.
    /// - Returns: All of them, in order.
    public static func buildBlock(_ components: [any HTTPInterceptor]...) -> [any HTTPInterceptor] {
        components.flatMap { $0 }
    }

    /// Wraps one interceptor.
    /// - Parameter expression: An interceptor.
    /// - Returns: A one-element array.
    public static func buildExpression(_ expression: any HTTPInterceptor) -> [any HTTPInterceptor] {
        [expression]
    }

    /// Passes an array of interceptors through.
    /// - Parameter expression: Interceptors.
    /// - Returns: The same array.
    public static func buildExpression(_ expression: [any HTTPInterceptor]) -> [any HTTPInterceptor] {
        expression
    }

    /// Supports `if` without `else`.
    /// - Parameter component: The interceptors when the condition holds.
    /// - Returns: Them, or nothing.
    public static func buildOptional(_ component: [any HTTPInterceptor]?) -> [any HTTPInterceptor] {
        component ?? []
    }

    /// Supports the first branch of `if`/`else`.
    /// - Parameter component: The branch's interceptors.
    /// - Returns: The same.
    public static func buildEither(first component: [any HTTPInterceptor]) -> [any HTTPInterceptor] {
        component
    }

    /// Supports the second branch of `if`/`else`.
    /// - Parameter component: The branch's interceptors.
    /// - Returns: The same.
    public static func buildEither(second component: [any HTTPInterceptor]) -> [any HTTPInterceptor] {
        component
    }

    /// Supports `for` loops.
    /// - Parameter components: Each iteration's interceptors.
    /// - Returns: All of them, in order.
    public static func buildArray(_ components: [[any HTTPInterceptor]]) -> [any HTTPInterceptor] {
        components.flatMap { $0 }
    }
}
