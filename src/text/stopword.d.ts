// The `stopword` package ships no type declarations; we only use its English list.
// This declaration serves our own build and is not emitted to dist/, so no public declaration may
// name stopword's types (test/package/ compiles a consumer that would then fail to resolve them).
declare module "stopword" {
  /** English stopwords, lower-case. */
  export const eng: readonly string[];
}
