/** New episode (being built). */
export default function NewEpisodePage() {
  return <h1>New episode</h1>;
}
