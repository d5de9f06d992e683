/** The package ships no types; test/support/prometheus.ts types its output. */
declare module 'parse-prometheus-text-format' {
  const parse: (text: string) => unknown[];
  export default parse;
}
