// Type declarations for the two small text packages that ship without their own.
declare module "wink-porter2-stemmer" {
  const stem: (word: string) => string;
  export default stem;
}
declare module "stopword" {
  /** English stop words (the package's maintained list). */
  export const eng: string[];
}
