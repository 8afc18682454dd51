// The `stopword` package ships no type declarations; we only use its English list.
declare module "stopword" {
  /** English stopwords, lower-case. */
  export const eng: readonly string[];
}
