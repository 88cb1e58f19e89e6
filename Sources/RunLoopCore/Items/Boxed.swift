/// A value kept in a heap block of its own: what an item keeps of a C
/// context it rarely needs whole, so the item itself stays small
/// (SourceActions, TimerCallout).
package final class Boxed<Value> {
    package let value: Value
    package init(_ value: Value) { self.value = value }
}
