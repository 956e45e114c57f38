/** Episodes: the 10 most recent (being built). */
export default function EpisodesPage() {
  return <h1>Episodes</h1>;
}
